import { artifactSandboxOrigin, artifactSandboxSource } from './artifact-sandbox-policy'

/**
 * The renderer's Content-Security-Policy. The renderer needs no network of its own: every
 * provider call goes through the core, so `connect-src` is the app itself (plus the bridge
 * socket of the same origin in browser mode). Inline scripts are never allowed; inline styles are, because
 * KaTeX and the virtualised list position elements with style attributes.
 */
export function buildContentSecurityPolicy(options: { mode: 'desktop' | 'browser'; dev?: boolean; devServer?: string; socketOrigin?: string; appOrigin?: string }): string {
  const self = "'self'"
  const connect = [self]
  // Browser mode: the bridge socket of this very origin (e.g. ws://127.0.0.1:5199), never
  // `ws:`/`wss:` at large, which would let injected script talk to any host.
  if (options.mode === 'browser' && options.socketOrigin && /^wss?:\/\/[A-Za-z0-9.:[\]_-]+$/.test(options.socketOrigin)) connect.push(options.socketOrigin)
  if (options.dev && options.devServer) {
    const dev = new URL(options.devServer)
    connect.push(dev.origin, `ws://${dev.host}`)
  }
  const script = [self]
  if (options.dev) script.push("'unsafe-inline'") // Vite's React refresh preamble in `npm start` only.
  const directives: Record<string, string[]> = {
    'default-src': [self],
    'script-src': script,
    'style-src': [self, "'unsafe-inline'"],
    'img-src': [self, 'data:', 'blob:'],
    'media-src': [self, 'data:', 'blob:'],
    'font-src': [self, 'data:'],
    'connect-src': connect,
    // Artifacts: frames only from the runtime folder of the app's own origin. This
    // also holds every later navigation of the frame, so an artifact cannot send itself to a
    // beacon address.
    'frame-src': ['blob:', ...(options.appOrigin && artifactSandboxSource(options.appOrigin) ? [artifactSandboxSource(artifactSandboxOrigin(options.appOrigin))!] : [])],
    'worker-src': [self, 'blob:'],
    'object-src': ["'none'"],
    'base-uri': ["'none'"],
    'form-action': ["'none'"],
    'frame-ancestors': ["'none'"]
  }
  return Object.entries(directives)
    .map(([name, values]) => `${name} ${values.join(' ')}`)
    .join('; ')
}
