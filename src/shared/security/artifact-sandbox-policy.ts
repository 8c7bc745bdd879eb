/**
 * Where artifacts run, and the Content-Security-Policy of that page.
 *
 * The artifact runtime is a separate build served at `/artifact-sandbox/` of the app's own
 * origin (browser mode: the server, outside the token path, because the sandboxed frame has an
 * opaque origin and gets no SameSite cookie; desktop: the `app://switchboard` protocol). The
 * app frames it with `sandbox="allow-scripts"` and no `allow-same-origin`, so the artifact has
 * an opaque origin: no cookies, no storage of the app, no bridge. This policy is the second
 * wall: no network at all (only the runtime's own files, which Pyodide fetches), unless the user
 * allowed the network for that one artifact (`?net=1`).
 */
export const ARTIFACT_SANDBOX_PATH = '/artifact-sandbox/'

/** `http://127.0.0.1:5405` or `app://switchboard`: a plain origin, nothing that could add a source to a policy. */
const isPlainOrigin = (origin: string) => /^(https?|app):\/\/[A-Za-z0-9.:[\]_-]+$/.test(origin)

/**
 * The origin artifact frames load from. On loopback it is the other loopback name than the
 * app's (127.0.0.1 <-> localhost): another site, so browsers that do not give a same-site
 * sandboxed frame its own process (Firefox; Chromium with IsolateSandboxedIframes off) still
 * do so by site-per-process, and a looping artifact cannot freeze the app. Elsewhere (a LAN
 * address, `app://`) the app's own origin, where Chromium isolates sandboxed frames itself.
 */
export function artifactSandboxOrigin(appOrigin: string): string {
  const match = /^http:\/\/(127\.0\.0\.1|localhost)(:\d+)?$/.exec(appOrigin)
  if (!match) return appOrigin
  return `http://${match[1] === 'localhost' ? '127.0.0.1' : 'localhost'}${match[2] ?? ''}`
}

/** The one place artifact frames may be loaded from (the parent's `frame-src`). */
export function artifactSandboxSource(origin: string): string | undefined {
  return isPlainOrigin(origin) ? `${origin}${ARTIFACT_SANDBOX_PATH}` : undefined
}

export function buildArtifactSandboxPolicy(options: { origin: string; network: boolean }): string {
  const base = artifactSandboxSource(options.origin)
  const runtime = base ? [base] : []
  const net = options.network ? ['https:', 'http:'] : []
  const directives: Record<string, string[]> = {
    'default-src': ["'none'"],
    // Artifacts are scripts by nature (inline, compiled JSX via eval, Pyodide's WebAssembly); the
    // sandbox and the missing network are what hold them, not the script policy.
    'script-src': ["'unsafe-inline'", "'unsafe-eval'", "'wasm-unsafe-eval'", 'blob:', ...runtime, ...net],
    'style-src': ["'unsafe-inline'", ...runtime, ...net],
    'img-src': ['data:', 'blob:', ...net],
    'media-src': ['data:', 'blob:', ...net],
    'font-src': ['data:', ...net],
    // Pyodide fetches its WebAssembly and standard library from the runtime folder.
    'connect-src': [...runtime, ...net],
    'worker-src': ['blob:', ...runtime],
    'frame-src': ["'none'"],
    'object-src': ["'none'"],
    'base-uri': ["'none'"],
    'form-action': ["'none'"],
    // Sandboxed even when opened as a page of its own ("open in a new tab"): an opaque origin,
    // never the app's, so no cookie, storage or bridge of the app is reachable from it.
    sandbox: ['allow-scripts']
  }
  return Object.entries(directives)
    .map(([name, values]) => `${name} ${values.length ? values.join(' ') : "'none'"}`)
    .join('; ')
}

/** The policy for a request into the runtime folder, or undefined for any other path. */
export function artifactSandboxPolicyFor(url: URL, origin: string): string | undefined {
  if (!url.pathname.startsWith(ARTIFACT_SANDBOX_PATH)) return undefined
  return buildArtifactSandboxPolicy({ origin, network: url.searchParams.get('net') === '1' })
}
