import type { IncomingMessage, ServerResponse } from 'node:http'
import { createReadStream, existsSync, statSync } from 'node:fs'
import { extname, join, normalize, resolve, sep } from 'node:path'
import { buildContentSecurityPolicy } from '../shared/security/csp'
import { ARTIFACT_SANDBOX_PATH, artifactSandboxPolicyFor } from '../shared/security/artifact-sandbox-policy'

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  // The artifact runtime: Pyodide's WebAssembly and standard library.
  '.wasm': 'application/wasm',
  '.zip': 'application/zip'
}

/**
 * A file of the built renderer under `staticRoot`, or its index.html for any path that is not
 * one (the app routes itself); never a file outside it. `extraHeaders` go with the page only.
 */
export function serveAppFile(staticRoot: string, req: IncomingMessage, res: ServerResponse, relative: string, extraHeaders: Record<string, string>): void {
  let path: string
  try {
    path = normalize(decodeURIComponent(relative))
  } catch {
    res.writeHead(400).end()
    return
  }
  if (path.endsWith('/') || path.endsWith(sep)) path += 'index.html'
  const file = resolve(join(staticRoot, path))
  const inside = file === staticRoot || file.startsWith(staticRoot + sep)
  const target = inside && existsSync(file) && statSync(file).isFile() ? file : join(staticRoot, 'index.html')
  if (!existsSync(target)) {
    res.writeHead(500, { 'Content-Type': 'text/plain' }).end('The renderer is not built. Run `npm run build` first.')
    return
  }
  const type = MIME[extname(target)] ?? 'application/octet-stream'
  const headers: Record<string, string> = { 'Content-Type': type, 'Cache-Control': 'no-cache' }
  if (type.startsWith('text/html')) {
    // The socket may go to this very origin and nowhere else.
    headers['Content-Security-Policy'] = buildContentSecurityPolicy({ mode: 'browser', socketOrigin: `ws://${req.headers.host}`, appOrigin: `http://${req.headers.host}` })
    Object.assign(headers, extraHeaders)
  }
  res.writeHead(200, headers)
  if (req.method === 'HEAD') res.end()
  else createReadStream(target).pipe(res)
}

/**
 * The artifact runtime is public code and carries no secret; the sandboxed frame has an
 * opaque origin and so gets no SameSite cookie, which is why it lives outside the token path.
 * Only files inside its own folder, each with the sandbox's policy; no fallback to the app.
 */
export function serveArtifactRuntime(staticRoot: string, req: IncomingMessage, res: ServerResponse, url: URL): void {
  const sandboxRoot = join(staticRoot, ARTIFACT_SANDBOX_PATH)
  if (req.method !== 'GET' && req.method !== 'HEAD') return void res.writeHead(405).end()
  let file: string
  try {
    file = resolve(join(sandboxRoot, normalize(decodeURIComponent(url.pathname.slice(ARTIFACT_SANDBOX_PATH.length)))))
  } catch {
    return void res.writeHead(400).end()
  }
  if (!file.startsWith(sandboxRoot) || !existsSync(file) || !statSync(file).isFile()) return void res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found')
  res.writeHead(200, {
    'Content-Type': MIME[extname(file)] ?? 'application/octet-stream',
    'Content-Security-Policy': artifactSandboxPolicyFor(url, `http://${req.headers.host}`)!,
    // Pyodide fetches its files from the opaque origin of the sandbox: a CORS request.
    'Access-Control-Allow-Origin': '*',
    'Cache-Control': 'no-cache'
  })
  if (req.method === 'HEAD') res.end()
  else createReadStream(file).pipe(res)
}
