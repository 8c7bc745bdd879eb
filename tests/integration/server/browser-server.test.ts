import { afterEach, describe, expect, it } from 'vitest'
import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import WebSocket from 'ws'
import { createCore, type Core } from '../../../src/core'
import { startBrowserServer } from '../../../src/server/server'
import { parseServeArgs } from '../../../src/server/options'
import type { ServerMessage } from '../../../src/shared/bridge/protocol'

const TOKEN = 'test-token-0123456789abcdef'
const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c()
})

async function start(password?: string) {
  const dir = mkdtempSync(join(tmpdir(), 'sb-server-'))
  const staticDir = join(dir, 'renderer')
  mkdirSync(join(staticDir, 'assets'), { recursive: true })
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>Switchboard</title>')
  writeFileSync(join(staticDir, 'assets', 'app.js'), 'console.log(1)')
  writeFileSync(join(dir, 'secret.txt'), 'do not serve')
  const core: Core = createCore({ dataDir: join(dir, 'data'), mode: 'browser', access: password ? { password, sessionKeys: new Set() } : undefined })
  const server = await startBrowserServer({ core, staticDir, host: '127.0.0.1', port: 0, token: TOKEN })
  cleanups.push(async () => {
    await server.close()
    await core.close()
  })
  const base = new URL(server.url).origin
  return { base, url: server.url }
}

function openSocket(url: string, headers: Record<string, string> = {}) {
  return new Promise<WebSocket>((resolve, reject) => {
    const ws = new WebSocket(url, { headers })
    ws.once('open', () => resolve(ws))
    ws.once('error', reject)
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)))
  })
}

function request(ws: WebSocket, message: object): Promise<ServerMessage> {
  return new Promise((resolve) => {
    ws.once('message', (data) => resolve(JSON.parse(String(data)) as ServerMessage))
    ws.send(JSON.stringify(message))
  })
}

describe('browser mode on loopback', () => {
  it('gives a request without the token nothing', async () => {
    const { base } = await start()
    const res = await fetch(`${base}/`)
    expect(res.status).toBe(403)
    expect(await res.text()).not.toContain('Switchboard')
    expect((await fetch(`${base}/assets/app.js`)).status).toBe(403)
    expect((await fetch(`${base}/?token=wrong-token-0123456789abcdef`)).status).toBe(403)
  })

  it('serves the page with the token and sets an HttpOnly SameSite cookie for the assets and the socket', async () => {
    const { base, url } = await start()
    const res = await fetch(url)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-security-policy')).toContain("connect-src 'self' ws: wss:")
    const cookie = res.headers.get('set-cookie')!
    expect(cookie).toMatch(/HttpOnly/)
    expect(cookie).toMatch(/SameSite=Strict/)
    const asset = await fetch(`${base}/assets/app.js`, { headers: { cookie: cookie.split(';')[0]! } })
    expect(asset.status).toBe(200)
  })

  it('never serves files outside the renderer folder', async () => {
    const { base } = await start()
    for (const path of ['/../secret.txt', '/%2e%2e/secret.txt', '/..%2fsecret.txt', '/assets/..%2f..%2fsecret.txt']) {
      const res = await fetch(`${base}${path}?token=${TOKEN}`)
      expect(await res.text()).not.toContain('do not serve')
    }
    expect((await fetch(`${base}/%E0%A4%A?token=${TOKEN}`)).status).toBe(400)
  })

  it('refuses a socket without the token, or from another origin', async () => {
    const { base } = await start()
    const wsBase = base.replace('http', 'ws')
    await expect(openSocket(`${wsBase}/bridge`)).rejects.toThrow(/403/)
    await expect(openSocket(`${wsBase}/bridge?token=${TOKEN}`, { Origin: 'https://evil.example' })).rejects.toThrow(/403/)
    const ws = await openSocket(`${wsBase}/bridge?token=${TOKEN}`, { Origin: base })
    const reply = await request(ws, { t: 'call', id: 1, proc: 'diag.echo', input: { value: 'hi' } })
    expect(reply).toEqual({ t: 'result', id: 1, result: { ok: true, value: { value: 'hi' } } })
    // A malformed message is ignored and the connection keeps serving.
    ws.send('not json')
    const bad = await request(ws, { t: 'call', id: 2, proc: 'diag.echo', input: { value: 42 } })
    expect(bad.t === 'result' && !bad.result.ok && bad.result.error.message).toContain('value')
    ws.close()
  })
})

describe('browser mode with an access password', () => {
  it('loads the page but answers the bridge only after the password', async () => {
    const { base } = await start('a-long-password')
    expect((await fetch(`${base}/`)).status).toBe(200)
    const ws = await openSocket(`${base.replace('http', 'ws')}/bridge`)
    const info = await request(ws, { t: 'call', id: 1, proc: 'app.info', input: {} })
    expect(info.t === 'result' && info.result.ok && (info.result.value as { passwordRequired: boolean }).passwordRequired).toBe(true)
    const locked = await request(ws, { t: 'call', id: 2, proc: 'diag.echo', input: { value: 'x' } })
    expect(locked.t === 'result' && !locked.result.ok && locked.result.error.errorType).toBe('InvalidAccessCode')
    const wrong = await request(ws, { t: 'auth', id: 3, password: 'nope' })
    expect(wrong.t === 'auth' && !wrong.result.ok && wrong.result.error.errorType).toBe('InvalidAccessCode')
    const ok = await request(ws, { t: 'auth', id: 4, password: 'a-long-password' })
    expect(ok.t === 'auth' && ok.result.ok).toBe(true)
    const echo = await request(ws, { t: 'call', id: 5, proc: 'diag.echo', input: { value: 'x' } })
    expect(echo.t === 'result' && echo.result.ok).toBe(true)
    ws.close()
  })
})

describe('serve options', () => {
  it('binds to loopback by default with a random token', () => {
    const a = parseServeArgs([], {})
    const b = parseServeArgs([], {})
    if ('error' in a || 'error' in b) throw new Error('unexpected')
    expect(a.host).toBe('127.0.0.1')
    expect(a.token).not.toBe(b.token)
    expect(a.token.length).toBeGreaterThanOrEqual(24)
  })
  it('refuses another address without a password, naming the fix', () => {
    const r = parseServeArgs(['--host', '0.0.0.0'], {})
    expect('error' in r && r.error).toMatch(/--password/)
    const ok = parseServeArgs(['--host', '0.0.0.0', '--password', 'long enough pw'], {})
    expect('error' in ok).toBe(false)
  })
  it('rejects bad values with a message', () => {
    expect('error' in parseServeArgs(['--port', 'abc'], {})).toBe(true)
    expect('error' in parseServeArgs(['--bogus'], {})).toBe(true)
    expect('error' in parseServeArgs(['--host', '0.0.0.0', '--password', 'short'], {})).toBe(true)
  })
})
