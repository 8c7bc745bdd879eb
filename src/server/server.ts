import { createServer, type IncomingMessage, type Server } from 'node:http'
import { createReadStream, existsSync, statSync } from 'node:fs'
import { extname, join, normalize, resolve, sep } from 'node:path'
import { timingSafeEqual } from 'node:crypto'
import { WebSocketServer, type WebSocket } from 'ws'
import type { ClientMessage, ServerMessage } from '../shared/bridge/protocol'
import type { Core } from '../core'
import { BridgeSession } from '../core/bridge/session'
import { buildContentSecurityPolicy } from '../shared/security/csp'
import { handleDataTransfer } from './data-transfer'

export interface BrowserServerOptions {
  core: Core
  /** Folder with the built renderer (out/renderer). */
  staticDir: string
  host: string
  port: number
  /** Required on every request unless a password is set (then the password guards the bridge). */
  token: string
}

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
  '.ttf': 'font/ttf'
}

const COOKIE = 'switchboard_token'

const sameSecret = (a: string | undefined | null, b: string) => {
  if (!a) return false
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

function cookieToken(req: IncomingMessage): string | undefined {
  const header = req.headers.cookie ?? ''
  for (const part of header.split(';')) {
    const [name, ...rest] = part.trim().split('=')
    if (name === COOKIE) return decodeURIComponent(rest.join('='))
  }
  return undefined
}

/**
 * Browser mode: the core in Node serving the built renderer and the bridge over WebSocket.
 * On loopback every request needs the random token (from the URL once, then an HttpOnly
 * SameSite=Strict cookie); a request without it gets a bare 403 and no data.
 * With an access password (required for non-loopback hosts) the page loads, but the bridge
 * answers nothing except `auth` until the password is given.
 */
export function startBrowserServer(options: BrowserServerOptions): Promise<{ server: Server; url: string; close(): Promise<void> }> {
  const { core, token } = options
  const staticRoot = resolve(options.staticDir)
  const passwordMode = Boolean(core.context.access?.password)
  const csp = buildContentSecurityPolicy({ mode: 'browser' })

  const authorised = (req: IncomingMessage, url: URL) =>
    sameSecret(url.searchParams.get('token'), token) || sameSecret(cookieToken(req), token)

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost')
    res.setHeader('X-Content-Type-Options', 'nosniff')
    res.setHeader('Referrer-Policy', 'no-referrer')
    res.setHeader('Cross-Origin-Opener-Policy', 'same-origin')
    if (url.pathname === '/healthz') {
      res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok')
      return
    }
    const tokenOk = authorised(req, url)
    if (!tokenOk && !passwordMode) {
      res.writeHead(403, { 'Content-Type': 'text/plain' }).end('Forbidden')
      return
    }
    if (sameSecret(url.searchParams.get('token'), token)) {
      res.setHeader('Set-Cookie', `${COOKIE}=${encodeURIComponent(token)}; HttpOnly; SameSite=Strict; Path=/`)
    }
    // Import/export files (browser mode): streamed HTTP behind the same checks as the socket.
    if (handleDataTransfer(req, res, url, core, tokenOk)) return
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405).end()
      return
    }
    let path: string
    try {
      path = normalize(decodeURIComponent(url.pathname))
    } catch {
      res.writeHead(400).end()
      return
    }
    if (path.endsWith('/')) path += 'index.html'
    const file = resolve(join(staticRoot, path))
    const inside = file === staticRoot || file.startsWith(staticRoot + sep)
    const target = inside && existsSync(file) && statSync(file).isFile() ? file : join(staticRoot, 'index.html')
    if (!existsSync(target)) {
      res.writeHead(500, { 'Content-Type': 'text/plain' }).end('The renderer is not built. Run `npm run build` first.')
      return
    }
    const type = MIME[extname(target)] ?? 'application/octet-stream'
    const headers: Record<string, string> = { 'Content-Type': type, 'Cache-Control': 'no-cache' }
    if (type.startsWith('text/html')) headers['Content-Security-Policy'] = csp
    res.writeHead(200, headers)
    if (req.method === 'HEAD') res.end()
    else createReadStream(target).pipe(res)
  })

  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 * 1024 })
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://localhost')
    const origin = req.headers.origin
    const host = req.headers.host
    // A page from another site must not drive the bridge (cross-site WebSocket hijacking).
    const sameOrigin = !origin || (host !== undefined && (origin === `http://${host}` || origin === `https://${host}`))
    const tokenOk = authorised(req, url)
    if (url.pathname !== '/bridge' || !sameOrigin || (!tokenOk && !passwordMode)) {
      socket.write('HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n')
      socket.destroy()
      return
    }
    wss.handleUpgrade(req, socket, head, (ws) => attachSession(ws, tokenOk))
  })

  const attachSession = (ws: WebSocket, tokenOk: boolean) => {
    const session = new BridgeSession(
      core.router,
      (message: ServerMessage) => {
        if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message))
      },
      core.context.access,
      // The loopback token proves the user opened the printed URL; with a password that is not enough.
      tokenOk && !passwordMode
    )
    ws.on('message', (data) => {
      let message: ClientMessage
      try {
        message = JSON.parse(String(data)) as ClientMessage
      } catch {
        return
      }
      session.receive(message)
    })
    ws.on('close', () => session.close())
    ws.on('error', () => session.close())
  }

  return new Promise((resolveStart, reject) => {
    server.once('error', reject)
    server.listen(options.port, options.host, () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : options.port
      const shownHost = options.host.includes(':') ? `[${options.host}]` : options.host
      const url = `http://${shownHost}:${port}/?token=${encodeURIComponent(token)}`
      resolveStart({
        server,
        url,
        close: () =>
          new Promise<void>((done) => {
            for (const client of wss.clients) client.terminate()
            wss.close()
            server.close(() => done())
            server.closeAllConnections()
          })
      })
    })
  })
}
