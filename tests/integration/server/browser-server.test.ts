import { afterEach, describe, expect, it } from 'vitest'
import { appPathFor } from '../../../src/server/server'
import { parseServeArgs } from '../../../src/server/options'
import { TOKEN, cleanup, openSocket, rawGet, request, start } from './server-harness'

afterEach(cleanup)
const APP = appPathFor(TOKEN)

describe('browser mode on loopback', () => {
  it('gives a request without the token nothing but the way to a fresh address', async () => {
    const { base } = await start()
    const res = await fetch(`${base}/`)
    expect(res.status).toBe(403)
    const body = await res.text()
    expect(body).not.toContain('Switchboard')
    expect(body).not.toContain('<script')
    expect(body).toMatch(/terminal where the server runs/)
    expect(body).toMatch(/--new-token/)
    expect((await fetch(`${base}/assets/app.js`)).status).toBe(403)
    expect((await fetch(`${base}${APP}assets/app.js`)).status).toBe(403)
    expect((await fetch(`${base}/?token=wrong-token-0123456789abcdef`)).status).toBe(403)
  })

  it('trades the token for a cookie scoped to the app path and leaves the address', async () => {
    const { base, url } = await start()
    const res = await fetch(url, { redirect: 'manual' })
    expect(res.status).toBe(303)
    expect(res.headers.get('location')).toBe(APP)
    const cookie = res.headers.get('set-cookie')!
    expect(cookie).toMatch(/HttpOnly/)
    expect(cookie).toMatch(/SameSite=Strict/)
    // Cookies go to every port of 127.0.0.1; only requests under the unguessable path carry it.
    expect(cookie).toContain(`Path=${APP}`)
    expect(APP).toMatch(/^\/[A-Za-z0-9_-]{24}\/$/)
    expect(APP).not.toContain(TOKEN)
    const jar = cookie.split(';')[0]!
    const page = await fetch(`${base}${APP}`, { headers: { cookie: jar } })
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('Switchboard')
    expect((await fetch(`${base}${APP}assets/app.js`, { headers: { cookie: jar } })).status).toBe(200)
    // The same cookie outside the app path (what another local server would be sent) is not enough.
    expect((await fetch(`${base}/assets/app.js`, { headers: { cookie: jar } })).status).toBe(403)
  })

  it('allows the socket to its own origin only (CSP connect-src)', async () => {
    const { base, port } = await start()
    const cookie = (await fetch(`${base}/?token=${TOKEN}`, { redirect: 'manual' })).headers.get('set-cookie')!.split(';')[0]!
    const page = await fetch(`${base}${APP}`, { headers: { cookie } })
    const csp = page.headers.get('content-security-policy')!
    const connect = /connect-src ([^;]*)/.exec(csp)![1]!.split(' ')
    expect(connect).toEqual(["'self'", `ws://127.0.0.1:${port}`])
  })

  it('never serves files outside the renderer folder', async () => {
    const { base } = await start()
    const cookie = (await fetch(`${base}/?token=${TOKEN}`, { redirect: 'manual' })).headers.get('set-cookie')!.split(';')[0]!
    for (const path of ['../secret.txt', '%2e%2e/secret.txt', '..%2fsecret.txt', 'assets/..%2f..%2fsecret.txt', '..%2f..%2fsecret.txt']) {
      const res = await fetch(`${base}${APP}${path}`, { headers: { cookie } })
      expect(await res.text()).not.toContain('do not serve')
    }
    expect((await fetch(`${base}${APP}%E0%A4%A`, { headers: { cookie } })).status).toBe(400)
  })

  it('refuses a socket without the token, or from another origin', async () => {
    const { base } = await start()
    const wsBase = base.replace('http', 'ws')
    await expect(openSocket(`${wsBase}${APP}bridge`)).rejects.toThrow(/403/)
    await expect(openSocket(`${wsBase}${APP}bridge?token=${TOKEN}`, { Origin: 'https://evil.example' })).rejects.toThrow(/403/)
    const ws = await openSocket(`${wsBase}${APP}bridge?token=${TOKEN}`, { Origin: base })
    const reply = await request(ws, { t: 'call', id: 1, proc: 'diag.echo', input: { value: 'hi' } })
    expect(reply).toEqual({ t: 'result', id: 1, result: { ok: true, value: { value: 'hi' } } })
    // A malformed message is ignored and the connection keeps serving.
    ws.send('not json')
    const bad = await request(ws, { t: 'call', id: 2, proc: 'diag.echo', input: { value: 42 } })
    expect(bad.t === 'result' && !bad.result.ok && bad.result.error.message).toContain('value')
    ws.close()
  })

  it('answers only Host names it is reachable under, for HTTP and WebSocket (DNS rebinding)', async () => {
    const { port } = await start(undefined, { allowedHosts: ['switchboard.lan'] })
    const evil = await rawGet(port, `/?token=${TOKEN}`, { Host: `rebind.attacker.example:${port}` })
    expect(evil.status).toBe(421)
    expect(evil.headers['set-cookie']).toBeUndefined()
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `switchboard.lan:${port}`, `SWITCHBOARD.LAN`]) {
      expect((await rawGet(port, `/?token=${TOKEN}`, { Host: host })).status).toBe(303)
    }
    for (const host of ['a;b.localhost', 'evil.example', 'localhost.evil.example']) {
      expect((await rawGet(port, '/healthz', { Host: host })).status).toBe(421)
    }
    // The socket of a rebound page: its Origin equals its Host, and the token is right.
    await expect(
      openSocket(`ws://127.0.0.1:${port}${APP}bridge?token=${TOKEN}`, { Host: `rebind.attacker.example:${port}`, Origin: `http://rebind.attacker.example:${port}` })
    ).rejects.toThrow(/403/)
  })
})

describe('serve options', () => {
  it('binds to loopback by default and leaves the token to the data folder', () => {
    const a = parseServeArgs([], {})
    if ('error' in a) throw new Error('unexpected')
    expect(a.host).toBe('127.0.0.1')
    expect(a.token).toBeUndefined()
    expect(a.rotateToken).toBe(false)
    const b = parseServeArgs(['--new-token'], {})
    expect('error' in b || b.rotateToken).toBe(true)
  })
  it('refuses another address without a password, naming the ways to give one', () => {
    const r = parseServeArgs(['--host', '0.0.0.0'], {})
    expect('error' in r && r.error).toMatch(/--password-file/)
    expect('error' in r && r.error).toMatch(/SWITCHBOARD_ACCESS_PASSWORD/)
    const ok = parseServeArgs(['--host', '0.0.0.0', '--password', 'long enough pw'], {})
    expect('error' in ok).toBe(false)
    // On a terminal the password is asked for instead of failing.
    const asked = parseServeArgs(['--host', '0.0.0.0'], {}, true)
    expect('error' in asked || asked.promptPassword).toBe(true)
  })
  it('rejects bad values with a message', () => {
    expect('error' in parseServeArgs(['--port', 'abc'], {})).toBe(true)
    expect('error' in parseServeArgs(['--bogus'], {})).toBe(true)
    expect('error' in parseServeArgs(['--host', '0.0.0.0', '--password', 'short'], {})).toBe(true)
    expect('error' in parseServeArgs(['--password-file', '/no/such/file'], {})).toBe(true)
  })
})
