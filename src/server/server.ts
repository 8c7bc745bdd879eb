import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import { resolve } from 'node:path'
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { WebSocketServer, type WebSocket } from 'ws'
import type { ClientMessage, ServerMessage } from '../shared/bridge/protocol'
import type { AppInfo } from '../shared/bridge/procedures/app'
import type { Contract } from '../shared/bridge/contract'
import { BridgeErrorType, type AppError } from '../shared/errors/app-error'
import type { Core } from '../core'
import { BridgeSession, INVALID_ACCESS_CODE_MESSAGE } from '../core/bridge/session'
import { ARTIFACT_SANDBOX_PATH } from '../shared/security/artifact-sandbox-policy'
import { createHostAllowList } from './host-allow-list'
import { AttemptLimiter, type AttemptLimits } from './attempt-limiter'
import { AccessSessions, type SessionLifetimes } from './access-sessions'
import { FORBIDDEN_PAGE } from './forbidden-page'
import { dataTransferRoute, type TransferLimits } from './data-transfer'
import { serveAppFile, serveArtifactRuntime } from './static-files'

export interface BrowserServerOptions {
  core: Core
  /** Folder with the built renderer (out/renderer). */
  staticDir: string
  host: string
  port: number
  /** Required on every request unless a password is set (then the password guards the bridge). */
  token: string
  /** Host names besides IP literals, localhost and `host` that the server answers to. */
  allowedHosts?: readonly string[]
  /** Injected in tests; the real clock otherwise. */
  now?: () => number
  attemptLimits?: AttemptLimits
  sessionLifetimes?: SessionLifetimes
  /** Every password attempt is answered after this delay, right or wrong. */
  answerDelayMs?: number
  log?: (line: string) => void
  /**
   * Further HTTP endpoints (data import/export…), asked after the Host and token checks and
   * before the static files. `path` is relative to the app path; `signedIn` says whether the
   * request comes from a browser that is past the token or has a live password session.
   * A route returns true when it answered.
   */
  routes?: readonly BrowserRoute[]
  /** Upload caps of the data routes (tests make them small). */
  transferLimits?: TransferLimits
}

export type BrowserRoute = (req: IncomingMessage, res: ServerResponse, context: { path: string; signedIn: boolean }) => boolean

const TOKEN_COOKIE = 'switchboard_token'
const BROWSER_COOKIE = 'switchboard_browser'

/** Before the password: a few small frames only (an unauthenticated peer must not make us buffer megabytes). */
export const PRE_AUTH_BYTES = 16 * 1024
export const PRE_AUTH_MESSAGES = 32
const PRE_AUTH_SOCKETS = 64
const PRE_AUTH_TIMEOUT_MS = 5 * 60_000
/** After authentication: attachments travel through the bridge. */
export const MAX_FRAME_BYTES = 64 * 1024 * 1024

const digest = (value: string) => createHash('sha256').update(value).digest()

/** Constant time in the length too: both sides are hashed first. */
const sameSecret = (a: unknown, b: string) => typeof a === 'string' && a.length > 0 && timingSafeEqual(digest(a), digest(b))

/**
 * The unguessable path the app lives under in token mode. Cookies are shared by every port
 * of 127.0.0.1, so the token cookie is scoped to this path: another local server never sees
 * a request for it. Derived from the token, so it stays the same across restarts.
 */
export const appPathFor = (token: string) => `/${createHash('sha256').update(`switchboard-app-path\0${token}`).digest('base64url').slice(0, 24)}/`

function readCookie(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=')
    if (key === name) {
      try {
        return decodeURIComponent(rest.join('='))
      } catch {
        return undefined
      }
    }
  }
  return undefined
}

const sameOriginRequest = (req: IncomingMessage) => {
  const origin = req.headers.origin
  const host = req.headers.host
  return !origin || (host !== undefined && (origin === `http://${host}` || origin === `https://${host}`))
}

/** What every request and socket of one server shares: its secrets, its gates and who is signed in. */
interface ServerState {
  core: Core
  token: string
  /** Set in password mode; token mode otherwise. */
  password: string | undefined
  appPath: string
  cookieAttributes: string
  staticRoot: string
  hostAllowed: (host: string | undefined) => boolean
  limiter: AttemptLimiter
  sessions: AccessSessions
  socketsOfBrowser: Map<string, Set<WebSocket>>
  /** Sockets that have not given the password yet. */
  preAuth: { sockets: number }
  routes: readonly BrowserRoute[]
  answerDelayMs: number
  log: (line: string) => void
}

const forbidden = (res: ServerResponse) =>
  res
    .writeHead(403, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'", 'Cache-Control': 'no-store' })
    .end(FORBIDDEN_PAGE)

/** The answer to an HTTP request: the Host check, the public paths, the token or password gate, the routes, the app's files. */
function handleRequest(state: ServerState, req: IncomingMessage, res: ServerResponse): void {
  const { token, appPath, cookieAttributes } = state
  const passwordMode = Boolean(state.password)
  res.setHeader('X-Content-Type-Options', 'nosniff')
  res.setHeader('Referrer-Policy', 'no-referrer')
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin')
  if (!state.hostAllowed(req.headers.host)) {
    res.writeHead(421, { 'Content-Type': 'text/plain' }).end('This host name is not one this server answers to. Start it with --allowed-host NAME to add one.')
    return
  }
  const url = new URL(req.url ?? '/', 'http://localhost')
  if (url.pathname === '/healthz') {
    res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok')
    return
  }
  if (url.pathname.startsWith(ARTIFACT_SANDBOX_PATH)) return serveArtifactRuntime(state.staticRoot, req, res, url)
  // Browsers ask for it at the root, where the path-scoped token cookie is not sent: "no icon",
  // not a 403 logged on every page load. It holds nothing.
  if (url.pathname === '/favicon.ico') return void res.writeHead(204, { 'Cache-Control': 'max-age=86400' }).end()
  if (!passwordMode) {
    if (sameSecret(url.searchParams.get('token'), token)) {
      // Trade the token in the address for a path-scoped cookie, and leave the address.
      res.writeHead(303, { 'Set-Cookie': `${TOKEN_COOKIE}=${encodeURIComponent(token)}; ${cookieAttributes}`, Location: appPath, 'Cache-Control': 'no-store' }).end()
      return
    }
    if (!url.pathname.startsWith(appPath) || !sameSecret(readCookie(req, TOKEN_COOKIE), token)) {
      forbidden(res)
      return
    }
  }
  if (passwordMode && !url.pathname.startsWith(appPath)) {
    if (req.method !== 'GET' && req.method !== 'HEAD') return void res.writeHead(404).end()
    res.writeHead(303, { Location: appPath, 'Cache-Control': 'no-store' }).end()
    return
  }
  const relative = url.pathname.slice(appPath.length - 1)
  if (passwordMode && relative === '/sign-out') return signOut(state, req, res)
  {
    const signedIn = !passwordMode || state.sessions.browserSignedIn(readCookie(req, BROWSER_COOKIE))
    for (const route of state.routes) if (route(req, res, { path: relative, signedIn })) return
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405).end()
    return
  }
  const extra: Record<string, string> = {}
  // Session keys are bound to this browser by a cookie no script can read.
  if (passwordMode && !readCookie(req, BROWSER_COOKIE)) extra['Set-Cookie'] = `${BROWSER_COOKIE}=${randomBytes(24).toString('base64url')}; ${cookieAttributes}`
  serveAppFile(state.staticRoot, req, res, relative, extra)
}

/** Password mode's sign-out: this browser's sessions end and its open sockets close. */
function signOut(state: ServerState, req: IncomingMessage, res: ServerResponse): void {
  if (req.method !== 'POST' || !sameOriginRequest(req)) {
    res.writeHead(405).end()
    return
  }
  const browser = readCookie(req, BROWSER_COOKIE)
  if (browser) {
    state.sessions.revokeBrowser(browser)
    for (const ws of state.socketsOfBrowser.get(browser) ?? []) ws.close(4401, 'Signed out')
  }
  res.writeHead(204, { 'Set-Cookie': `${BROWSER_COOKIE}=; Max-Age=0; ${state.cookieAttributes}`, 'Cache-Control': 'no-store' }).end()
}

/** The bridge's socket: same origin, the app's path, and the token (or, in password mode, a free pre-auth slot). */
function handleUpgrade(state: ServerState, wss: WebSocketServer, req: IncomingMessage, socket: Duplex, head: Buffer): void {
  const passwordMode = Boolean(state.password)
  const url = new URL(req.url ?? '/', 'http://localhost')
  const reject = (status: string) => {
    socket.write(`HTTP/1.1 ${status}\r\nConnection: close\r\n\r\n`)
    socket.destroy()
  }
  // A page from another site must not drive the bridge (cross-site WebSocket hijacking).
  if (!state.hostAllowed(req.headers.host) || url.pathname !== `${state.appPath}bridge` || !sameOriginRequest(req)) return reject('403 Forbidden')
  const tokenOk = !passwordMode && (sameSecret(readCookie(req, TOKEN_COOKIE), state.token) || sameSecret(url.searchParams.get('token'), state.token))
  if (!passwordMode && !tokenOk) return reject('403 Forbidden')
  if (passwordMode && state.preAuth.sockets >= PRE_AUTH_SOCKETS) return reject('503 Service Unavailable')
  wss.handleUpgrade(req, socket, head, (ws) => attachSocket(state, ws, req))
}

const publicInfo: AppInfo = { name: 'Switchboard', version: '', mode: 'browser', platform: '', passwordRequired: true }
const unauthorised = (message: string, errorType: AppError['errorType'] = BridgeErrorType.Unauthorized, retryAfterMs?: number): AppError => ({
  errorType,
  status: errorType === BridgeErrorType.Unauthorized ? 401 : 429,
  message,
  ...(retryAfterMs !== undefined ? { detail: { retryAfterMs } } : {})
})

/** One socket before and after the password: what it may send, and the session it gets. */
interface Connection {
  ws: WebSocket
  address: string
  browser: string | undefined
  send(message: ServerMessage): void
  /** The bridge session opens (the password or a session key was right). */
  authenticate(key: string | undefined): void
  /** A password attempt of this socket is waiting for its answer. */
  pendingAttempt: boolean
}

function attachSocket(state: ServerState, ws: WebSocket, req: IncomingMessage): void {
  const passwordMode = Boolean(state.password)
  let session: BridgeSession<Contract> | undefined
  let sessionKey: string | undefined
  let preAuthMessages = 0
  let counted = false
  const uncount = () => {
    if (counted) {
      counted = false
      state.preAuth.sockets--
    }
  }
  const conn: Connection = {
    ws,
    address: req.socket.remoteAddress ?? 'unknown',
    browser: readCookie(req, BROWSER_COOKIE),
    send: (message) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message))
    },
    authenticate: (key) => {
      session = new BridgeSession(state.core.router, conn.send, undefined, true)
      sessionKey = key
      uncount()
    },
    pendingAttempt: false
  }
  const { browser } = conn

  if (!passwordMode) conn.authenticate(undefined)
  else {
    counted = true
    state.preAuth.sockets++
    if (browser) {
      let set = state.socketsOfBrowser.get(browser)
      if (!set) state.socketsOfBrowser.set(browser, (set = new Set()))
      set.add(ws)
    }
    guardPreAuth(ws, req, () => session !== undefined)
  }

  ws.on('message', (data) => {
    if (!session && ++preAuthMessages > PRE_AUTH_MESSAGES) return ws.terminate()
    let message: ClientMessage
    try {
      message = JSON.parse(String(data)) as ClientMessage
    } catch {
      return
    }
    if (typeof message !== 'object' || message === null) return
    if (message.t === 'auth') return answerAuth(state, conn, message)
    if (!session) {
      const error = unauthorised(INVALID_ACCESS_CODE_MESSAGE)
      if (message.t === 'call') conn.send({ t: 'result', id: message.id, result: message.proc === 'app.info' ? { ok: true, value: publicInfo } : { ok: false, error } })
      else if (message.t === 'start' || message.t === 'attach') conn.send({ t: 'refused', id: message.id, error })
      return
    }
    // An open socket lives no longer than its session key.
    if (sessionKey !== undefined && !state.sessions.touch(sessionKey)) return ws.close(4401, 'Session expired')
    session.receive(message)
  })
  ws.on('close', () => {
    session?.close()
    uncount()
    if (browser) state.socketsOfBrowser.get(browser)?.delete(ws)
    if (browser && state.socketsOfBrowser.get(browser)?.size === 0) state.socketsOfBrowser.delete(browser)
  })
  ws.on('error', () => session?.close())
}

/**
 * Before the password: bytes are counted as they arrive on the wire, before ws buffers a
 * frame, so a peer that has not given it cannot make the server hold more than a few KiB; and
 * the socket ends if it has not given it within the timeout.
 */
function guardPreAuth(ws: WebSocket, req: IncomingMessage, authenticated: () => boolean): void {
  let preAuthBytes = 0
  const countBytes = (chunk: Buffer) => {
    if (authenticated()) return req.socket.off('data', countBytes)
    preAuthBytes += chunk.length
    if (preAuthBytes > PRE_AUTH_BYTES) ws.terminate()
  }
  req.socket.on('data', countBytes)
  const timer = setTimeout(() => {
    if (!authenticated()) ws.terminate()
  }, PRE_AUTH_TIMEOUT_MS)
  timer.unref()
  ws.once('close', () => clearTimeout(timer))
}

/** An `auth` message: a session key resumed, or a password attempt, limited per address and answered after the same pause. */
function answerAuth(state: ServerState, conn: Connection, message: Extract<ClientMessage, { t: 'auth' }>): void {
  const { limiter, sessions, answerDelayMs } = state
  const { address, browser } = conn
  const answer = (result: Extract<ServerMessage, { t: 'auth' }>['result']) => conn.send({ t: 'auth', id: message.id, result })
  if (!state.password) return answer({ ok: true, value: { sessionKey: '' } })
  const password = state.password
  if (typeof message.sessionKey === 'string' && message.sessionKey) {
    if (sessions.resume(message.sessionKey, browser)) {
      conn.authenticate(message.sessionKey)
      return answer({ ok: true, value: { sessionKey: message.sessionKey } })
    }
    return answer({ ok: false, error: unauthorised(INVALID_ACCESS_CODE_MESSAGE) })
  }
  const decision = limiter.check(address)
  if (!decision.allowed || conn.pendingAttempt) {
    const retryAfterMs = decision.allowed ? answerDelayMs : decision.retryAfterMs
    return answer({ ok: false, error: unauthorised(`Too many wrong passwords. Try again in ${Math.ceil(retryAfterMs / 1000)} s.`, 'TooManyAttempts', retryAfterMs) })
  }
  const candidate = typeof message.password === 'string' ? message.password : ''
  conn.pendingAttempt = true
  limiter.hold(address, answerDelayMs)
  // Every attempt is answered after the same pause, right or wrong, so neither the
  // timing nor pipelined guesses tell anything.
  setTimeout(() => {
    conn.pendingAttempt = false
    if (conn.ws.readyState !== conn.ws.OPEN) return
    if (candidate && sameSecret(candidate, password)) {
      limiter.succeed(address)
      const key = sessions.create(browser)
      conn.authenticate(key)
      return answer({ ok: true, value: { sessionKey: key } })
    }
    if (candidate) {
      const failures = limiter.fail(address)
      state.log(`Access password: wrong attempt from ${address} (${failures} in a row).`)
    }
    const after = limiter.check(address)
    answer({ ok: false, error: unauthorised(INVALID_ACCESS_CODE_MESSAGE, BridgeErrorType.Unauthorized, after.allowed ? undefined : after.retryAfterMs) })
  }, answerDelayMs)
}

/**
 * Browser mode: the core in Node serving the built renderer and the bridge over WebSocket.
 * Token mode (loopback): the printed address carries the token once; the server answers it
 * with an HttpOnly cookie scoped to the app's unguessable path and a redirect there.
 * Password mode: the page loads, but the bridge answers nothing but `app.info` (reduced)
 * and `auth` until the password is given; guesses are limited per address and globally.
 * Every request must name a Host the server is really reachable under (DNS rebinding).
 */
export function startBrowserServer(options: BrowserServerOptions): Promise<{ server: Server; url: string; close(): Promise<void> }> {
  const { core, token } = options
  const now = options.now ?? Date.now
  const password = core.context.access?.password
  // Both modes live under this path, so their cookies (the token's, the password session's
  // browser cookie) are never sent to another server on the same host; the printed `/` of
  // password mode redirects here.
  const appPath = appPathFor(token)
  const state: ServerState = {
    core,
    token,
    password,
    appPath,
    cookieAttributes: `HttpOnly; SameSite=Strict; Path=${appPath}`,
    staticRoot: resolve(options.staticDir),
    hostAllowed: createHostAllowList({ host: options.host, allowedHosts: options.allowedHosts }),
    limiter: new AttemptLimiter(now, options.attemptLimits),
    sessions: new AccessSessions(now, options.sessionLifetimes),
    socketsOfBrowser: new Map(),
    preAuth: { sockets: 0 },
    // Import/export files travel over HTTP, behind the same checks as the socket.
    routes: [dataTransferRoute(core, options.transferLimits), ...(options.routes ?? [])],
    answerDelayMs: options.answerDelayMs ?? 400,
    log: options.log ?? ((line: string) => console.warn(line))
  }
  const server = createServer((req, res) => handleRequest(state, req, res))
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES })
  server.on('upgrade', (req, socket, head) => handleUpgrade(state, wss, req, socket, head))

  return new Promise((resolveStart, reject) => {
    server.once('error', reject)
    server.listen(options.port, options.host, () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : options.port
      const shownHost = options.host.includes(':') ? `[${options.host}]` : options.host
      const url = password ? `http://${shownHost}:${port}${appPath}` : `http://${shownHost}:${port}/?token=${encodeURIComponent(token)}`
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
