import { afterEach, describe, expect, it } from 'vitest'
import type { ServerResponse } from 'node:http'
import { AttemptLimiter, DEFAULT_ATTEMPT_LIMITS } from '../../../src/server/attempt-limiter'
import { appPathFor, PRE_AUTH_BYTES } from '../../../src/server/server'
import type { ServerMessage } from '../../../src/shared/bridge/protocol'
import { PASSWORD, TOKEN, cleanup, closed, openSocket, rawGet, request, requestAll, start } from './server-harness'

afterEach(cleanup)

/** Password mode lives under the same unguessable path as token mode; `/` redirects there. */
const APP = appPathFor(TOKEN)

/** A clock the test moves by hand, so waits are checked without waiting. */
function manualClock() {
  let t = 1_000_000
  return { now: () => t, advance: (ms: number) => (t += ms) }
}

const authError = (m: ServerMessage) => (m.t === 'auth' && !m.result.ok ? m.result.error : undefined)
const retryAfter = (m: ServerMessage) => (authError(m)?.detail as { retryAfterMs?: number } | undefined)?.retryAfterMs

/** Loads the page like a browser: the server hands out the browser cookie sessions are bound to. */
async function browserCookie(base: string) {
  const res = await fetch(`${base}/`)
  return res.headers.get('set-cookie')!.split(';')[0]!
}

describe('browser mode with an access password', () => {
  it('scopes the browser cookie to the app path (other servers on this host never receive it), and / leads there', async () => {
    const { base, port } = await start(PASSWORD, { answerDelayMs: 5 })
    const root = await rawGet(port, '/')
    expect(root.status).toBe(303)
    expect(root.headers.location).toBe(APP)
    const page = await rawGet(port, APP)
    expect(page.status).toBe(200)
    const cookie = String(page.headers['set-cookie'])
    expect(cookie).toContain(`Path=${APP}`)
    expect(cookie).not.toContain('Path=/;')
    expect((await rawGet(port, '/bridge', {}, 'POST')).status).toBe(404)
    expect((await fetch(`${base}/`)).url).toBe(`${base}${APP}`)
  })

  it('loads the page but answers the bridge only after the password, telling nothing else before it', async () => {
    const { base } = await start(PASSWORD, { answerDelayMs: 5 })
    expect((await fetch(`${base}/`)).status).toBe(200)
    const ws = await openSocket(`${base.replace('http', 'ws')}${APP}bridge`)
    const info = await request(ws, { t: 'call', id: 1, proc: 'app.info', input: {} })
    const value = info.t === 'result' && info.result.ok ? (info.result.value as Record<string, unknown>) : {}
    expect(value['passwordRequired']).toBe(true)
    // Version and platform help an attacker pick an exploit; the unlock page does not need them.
    expect(value['version']).toBe('')
    expect(value['platform']).toBe('')
    const locked = await request(ws, { t: 'call', id: 2, proc: 'diag.echo', input: { value: 'x' } })
    expect(locked.t === 'result' && !locked.result.ok && locked.result.error.errorType).toBe('InvalidAccessCode')
    const wrong = await request(ws, { t: 'auth', id: 3, password: 'nope-nope' })
    expect(authError(wrong)?.errorType).toBe('InvalidAccessCode')
    const ok = await request(ws, { t: 'auth', id: 4, password: PASSWORD })
    expect(ok.t === 'auth' && ok.result.ok).toBe(true)
    const echo = await request(ws, { t: 'call', id: 5, proc: 'diag.echo', input: { value: 'x' } })
    expect(echo.t === 'result' && echo.result.ok).toBe(true)
    const full = await request(ws, { t: 'call', id: 6, proc: 'app.info', input: {} })
    expect(full.t === 'result' && full.result.ok && (full.result.value as { version: string }).version).not.toBe('')
    ws.close()
  })

  it('backs off after five wrong passwords per address, refuses even the right one while waiting, and logs the address', async () => {
    const clock = manualClock()
    const { base, logs } = await start(PASSWORD, { answerDelayMs: 5, now: clock.now })
    const ws = await openSocket(`${base.replace('http', 'ws')}${APP}bridge`)
    for (let i = 0; i < 5; i++) {
      const answer = await request(ws, { t: 'auth', id: i, password: `wrong guess ${i}` })
      expect(authError(answer)?.errorType).toBe('InvalidAccessCode')
      clock.advance(10)
    }
    expect(logs.filter((l) => l.includes('127.0.0.1'))).toHaveLength(5)
    expect(logs[4]).toMatch(/wrong attempt from .*127\.0\.0\.1.*5 in a row/)
    const refused = await request(ws, { t: 'auth', id: 10, password: PASSWORD })
    expect(authError(refused)?.errorType).toBe('TooManyAttempts')
    expect(retryAfter(refused)).toBeGreaterThan(0)
    expect(retryAfter(refused)).toBeLessThanOrEqual(1000)
    // Another socket from the same address waits too.
    const other = await openSocket(`${base.replace('http', 'ws')}${APP}bridge`)
    expect(authError(await request(other, { t: 'auth', id: 1, password: PASSWORD }))?.errorType).toBe('TooManyAttempts')
    clock.advance(1000)
    const sixth = await request(ws, { t: 'auth', id: 11, password: 'wrong again' })
    expect(authError(sixth)?.errorType).toBe('InvalidAccessCode')
    // Each further failure doubles the wait; the answer says how long.
    expect(retryAfter(sixth)).toBe(2000)
    clock.advance(2000)
    const right = await request(ws, { t: 'auth', id: 12, password: PASSWORD })
    expect(right.t === 'auth' && right.result.ok).toBe(true)
    ws.close()
    other.close()
  })

  it('locks an address for minutes after twenty failures', async () => {
    const clock = manualClock()
    const { base } = await start(PASSWORD, { answerDelayMs: 1, now: clock.now })
    const ws = await openSocket(`${base.replace('http', 'ws')}${APP}bridge`)
    let last: ServerMessage | undefined
    for (let i = 0; i < 20; i++) {
      last = await request(ws, { t: 'auth', id: i, password: `wrong guess ${i}` })
      expect(authError(last)?.errorType).toBe('InvalidAccessCode')
      clock.advance(10 * 60_000) // past any back-off, so every guess is really looked at
    }
    clock.advance(-10 * 60_000)
    expect(retryAfter(last!)).toBeGreaterThanOrEqual(10 * 60_000)
    clock.advance(5 * 60_000)
    expect(authError(await request(ws, { t: 'auth', id: 99, password: PASSWORD }))?.errorType).toBe('TooManyAttempts')
    ws.close()
  })

  it('looks at one guess at a time: pipelined guesses are refused without being checked', async () => {
    // The first guess is answered after a second: every pipelined frame arrives while it waits,
    // even on a loaded machine (at 50 ms a CI run once read a frame after the answer, which is
    // then rightly looked at as the next guess in turn).
    const { base, logs } = await start(PASSWORD, { answerDelayMs: 1_000 })
    const ws = await openSocket(`${base.replace('http', 'ws')}${APP}bridge`)
    const guesses = Array.from({ length: 30 }, (_, i) => ({ t: 'auth', id: i, password: i === 29 ? PASSWORD : `guess number ${i}` }))
    const answers = await requestAll(ws, guesses)
    const checked = answers.filter((a) => authError(a)?.errorType !== 'TooManyAttempts')
    expect(checked).toHaveLength(1) // the first; the right password at the end was never compared
    expect(answers.some((a) => a.t === 'auth' && a.result.ok)).toBe(false)
    expect(logs).toHaveLength(1)
    ws.close()
  })

  it('limits guesses from all addresses together', () => {
    let t = 0
    const limiter = new AttemptLimiter(() => t, DEFAULT_ATTEMPT_LIMITS)
    // Many addresses, each staying under its own limit.
    for (let i = 0; i < DEFAULT_ATTEMPT_LIMITS.globalFreeFailures; i++) limiter.fail(`10.0.${Math.floor(i / 4)}.${i % 4}`)
    const fresh = limiter.check('192.168.1.77')
    expect(fresh.allowed).toBe(false)
    t += 1000
    expect(limiter.check('192.168.1.77').allowed).toBe(true)
  })

  it('accepts only a few small frames before the password, large ones after it', async () => {
    const { base } = await start(PASSWORD, { answerDelayMs: 1 })
    const url = `${base.replace('http', 'ws')}${APP}bridge`
    const big = JSON.stringify({ t: 'call', id: 1, proc: 'diag.echo', input: { value: 'x'.repeat(PRE_AUTH_BYTES * 4) } })
    const early = await openSocket(url)
    const earlyClosed = closed(early)
    early.send(big)
    await earlyClosed
    // Many small frames are no better.
    const chatty = await openSocket(url)
    const chattyClosed = closed(chatty)
    for (let i = 0; i < 100; i++) chatty.send('{}')
    await chattyClosed
    const late = await openSocket(url)
    expect((await request(late, { t: 'auth', id: 1, password: PASSWORD })).t).toBe('auth')
    const echo = await request(late, JSON.parse(big) as object)
    expect(echo.t === 'result' && echo.result.ok).toBe(true)
    late.close()
  })

  it('binds session keys to the browser cookie, expires them when idle and after an absolute lifetime, and signs out', async () => {
    const clock = manualClock()
    const { base, port } = await start(PASSWORD, { answerDelayMs: 1, now: clock.now, sessionLifetimes: { idleMs: 60_000, absoluteMs: 300_000 } })
    const wsUrl = `${base.replace('http', 'ws')}${APP}bridge`
    const cookieA = await browserCookie(base)
    const cookieB = await browserCookie(base)
    expect(cookieA).not.toBe(cookieB)
    const first = await openSocket(wsUrl, { cookie: cookieA })
    const auth = await request(first, { t: 'auth', id: 1, password: PASSWORD })
    const key = auth.t === 'auth' && auth.result.ok ? auth.result.value.sessionKey : ''
    expect(key.length).toBeGreaterThan(20)
    first.close()

    const resume = async (cookie: string | undefined) => {
      const ws = await openSocket(wsUrl, cookie ? { cookie } : {})
      const answer = await request(ws, { t: 'auth', id: 2, sessionKey: key })
      ws.close()
      return answer.t === 'auth' && answer.result.ok
    }
    expect(await resume(undefined)).toBe(false) // a stolen key alone is useless
    expect(await resume(cookieB)).toBe(false)
    expect(await resume(cookieA)).toBe(true)
    clock.advance(59_000)
    expect(await resume(cookieA)).toBe(true) // use keeps it alive
    for (let i = 0; i < 4; i++) {
      clock.advance(59_000)
      expect(await resume(cookieA)).toBe(true)
    }
    clock.advance(59_000) // now past the absolute lifetime, though never idle
    expect(await resume(cookieA)).toBe(false)

    // Idle expiry, and an open socket ends with its session.
    const second = await openSocket(wsUrl, { cookie: cookieA })
    await request(second, { t: 'auth', id: 1, password: PASSWORD })
    clock.advance(61_000)
    const secondClosed = closed(second)
    second.send(JSON.stringify({ t: 'call', id: 3, proc: 'diag.echo', input: { value: 'x' } }))
    expect(await secondClosed).toBe(4401)

    // Sign-out revokes this browser's keys and closes its sockets.
    const third = await openSocket(wsUrl, { cookie: cookieA })
    const thirdAuth = await request(third, { t: 'auth', id: 1, password: PASSWORD })
    const thirdKey = thirdAuth.t === 'auth' && thirdAuth.result.ok ? thirdAuth.result.value.sessionKey : ''
    const thirdClosed = closed(third)
    const out = await rawGet(port, `${APP}sign-out`, { cookie: cookieA, Origin: base }, 'POST')
    expect(out.status).toBe(204)
    expect(String(out.headers['set-cookie'])).toMatch(/Max-Age=0/)
    expect(await thirdClosed).toBe(4401)
    const again = await openSocket(wsUrl, { cookie: cookieA })
    const answer = await request(again, { t: 'auth', id: 2, sessionKey: thirdKey })
    expect(answer.t === 'auth' && answer.result.ok).toBe(false)
    again.close()
    // Sign-out from another site is refused.
    expect((await rawGet(port, `${APP}sign-out`, { cookie: cookieB, Origin: 'https://evil.example' }, 'POST')).status).toBe(405)
  })
})

describe('further HTTP endpoints', () => {
  it('are asked only after the Host check and learn whether the browser is signed in', async () => {
    const seen: { path: string; signedIn: boolean }[] = []
    const route = (_req: unknown, res: ServerResponse, context: { path: string; signedIn: boolean }) => {
      if (context.path !== '/export') return false
      seen.push(context)
      res.writeHead(context.signedIn ? 200 : 401).end()
      return true
    }
    const { base, port } = await start(PASSWORD, { answerDelayMs: 1, routes: [route] })
    const cookie = await browserCookie(base)
    expect((await rawGet(port, `${APP}export`, { Host: 'evil.example' })).status).toBe(421)
    expect((await rawGet(port, `${APP}export`, { cookie })).status).toBe(401)
    const ws = await openSocket(`${base.replace('http', 'ws')}${APP}bridge`, { cookie })
    await request(ws, { t: 'auth', id: 1, password: PASSWORD })
    expect((await rawGet(port, `${APP}export`, { cookie })).status).toBe(200)
    expect(seen).toEqual([
      { path: '/export', signedIn: false },
      { path: '/export', signedIn: true }
    ])
    ws.close()
  })
})
