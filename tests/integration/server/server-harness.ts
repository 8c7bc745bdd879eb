import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import WebSocket from 'ws'
import { startBrowserServer, type BrowserServerOptions } from '../../../src/server/server'
import type { ServerMessage } from '../../../src/shared/bridge/protocol'
import { startTestCore } from '../test-core'

export const TOKEN = 'test-token-0123456789abcdef'
export const PASSWORD = 'a-long-password'

const cleanups: (() => Promise<void>)[] = []
export async function cleanup() {
  for (const c of cleanups.splice(0)) await c()
}

/** The real browser server on a free loopback port, with a tiny renderer folder. */
export async function start(password?: string, extra: Partial<BrowserServerOptions> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'sb-server-'))
  const staticDir = join(dir, 'renderer')
  mkdirSync(join(staticDir, 'assets'), { recursive: true })
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>Switchboard</title>')
  writeFileSync(join(staticDir, 'assets', 'app.js'), 'console.log(1)')
  writeFileSync(join(dir, 'secret.txt'), 'do not serve')
  // Left unstarted, as these tests always had it: they test the server, not start-up.
  const { core } = await startTestCore('sb-server-', { dataDir: join(dir, 'data'), start: false, mode: 'browser', access: password ? { password, sessionKeys: new Set() } : undefined })
  const logs: string[] = []
  const server = await startBrowserServer({ core, staticDir, host: '127.0.0.1', port: 0, token: TOKEN, log: (l) => logs.push(l), ...extra })
  cleanups.push(async () => {
    await server.close()
    await core.close()
  })
  const base = new URL(server.url).origin
  return { base, url: server.url, port: Number(new URL(server.url).port), logs }
}

/** A raw HTTP request (fetch may not set Host). */
export function rawGet(port: number, path: string, headers: Record<string, string> = {}, method = 'GET') {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => (body += c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

export function openSocket(url: string, headers: Record<string, string> = {}, options: WebSocket.ClientOptions = {}) {
  return new Promise<WebSocket>((resolve, reject) => {
    const ws = new WebSocket(url, { headers, ...options })
    ws.once('open', () => resolve(ws))
    ws.once('error', reject)
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)))
  })
}

export function request(ws: WebSocket, message: object): Promise<ServerMessage> {
  return new Promise((resolve) => {
    ws.once('message', (data) => resolve(JSON.parse(String(data)) as ServerMessage))
    ws.send(JSON.stringify(message))
  })
}

/** Sends all messages at once and collects as many answers. */
export function requestAll(ws: WebSocket, messages: object[]): Promise<ServerMessage[]> {
  return new Promise((resolve) => {
    const answers: ServerMessage[] = []
    const onMessage = (data: WebSocket.RawData) => {
      answers.push(JSON.parse(String(data)) as ServerMessage)
      if (answers.length === messages.length) {
        ws.off('message', onMessage)
        resolve(answers)
      }
    }
    ws.on('message', onMessage)
    for (const m of messages) ws.send(JSON.stringify(m))
  })
}

export const closed = (ws: WebSocket) =>
  new Promise<number>((resolve) => {
    if (ws.readyState === ws.CLOSED) resolve(-1)
    ws.once('close', (code) => resolve(code))
  })
