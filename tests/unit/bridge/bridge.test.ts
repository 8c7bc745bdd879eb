import { describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { call, stream } from '../../../src/shared/bridge/define'
import { Router } from '../../../src/core/bridge/router'
import { createInProcessClient } from '../../../src/core/bridge/in-process'
import { AppErrorException } from '../../../src/shared/errors/app-error'
import type { Result } from '../../../src/shared/errors/app-error'

const testContract = {
  'math.add': call<{ sum: number }>()(z.object({ a: z.number(), b: z.number() }).strict()),
  'math.fail': call<never>()(z.object({})),
  'math.crash': call<never>()(z.object({})),
  'ticks.run': stream<{ i: number }, { total: number }>()(z.object({ count: z.number().int().min(0), gapMs: z.number().int().min(0) })),
  'ticks.broken': stream<{ i: number }, void>()(z.object({}))
} as const

function makeRouter() {
  let cancelled = false
  const router = new Router(testContract, {
    'math.add': ({ a, b }) => ({ sum: a + b }),
    'math.fail': () => {
      throw new AppErrorException({ errorType: 'ModelNotFound', message: 'no such model', status: 404 })
    },
    'math.crash': () => {
      throw new TypeError('undefined is not a function')
    },
    'ticks.run': async function* ({ count, gapMs }, { signal }) {
      for (let i = 0; i < count; i++) {
        if (signal.aborted) {
          cancelled = true
          throw Object.assign(new Error('aborted'), { name: 'AbortError' })
        }
        await new Promise((r) => setTimeout(r, gapMs))
        yield { i }
      }
      return { total: count }
    },
    'ticks.broken': async function* () {
      yield { i: 0 }
      throw new AppErrorException({ errorType: 'StreamChunkError', message: 'bad chunk' })
    }
  })
  return { router, wasCancelled: () => cancelled }
}

const collect = <E, R>() => {
  const events: E[] = []
  let resolveEnd!: (r: Result<R>) => void
  const ended = new Promise<Result<R>>((r) => (resolveEnd = r))
  return { events, ended, handlers: { onEvent: (e: E) => events.push(e), onEnd: (r: Result<R>) => resolveEnd(r) } }
}

describe('bridge over the in-process transport', () => {
  it('calls a procedure and returns a plain result', async () => {
    const { client } = createInProcessClient(makeRouter().router)
    expect(await client.call('math.add', { a: 2, b: 3 })).toEqual({ ok: true, value: { sum: 5 } })
  })

  it('rejects bad input with a validation error that names the field, and keeps serving', async () => {
    const { client } = createInProcessClient(makeRouter().router)
    const bad = await client.call('math.add', { a: 2, b: 'three' } as unknown as { a: number; b: number })
    expect(bad.ok).toBe(false)
    if (bad.ok) return
    expect(bad.error.errorType).toBe('ValidationError')
    expect(bad.error.message).toContain('b')
    expect(bad.error.message).toMatch(/number/i)
    const extra = await client.call('math.add', { a: 1, b: 1, c: 1 } as unknown as { a: number; b: number })
    expect(extra.ok).toBe(false)
    expect(await client.call('math.add', { a: 1, b: 1 })).toEqual({ ok: true, value: { sum: 2 } })
  })

  it('turns service errors into catalogue errors as data, and unknown throws into InternalError', async () => {
    const { client } = createInProcessClient(makeRouter().router)
    expect(await client.call('math.fail', {})).toEqual({ ok: false, error: { errorType: 'ModelNotFound', message: 'no such model', status: 404 } })
    const crash = await client.call('math.crash', {})
    expect(crash.ok).toBe(false)
    if (!crash.ok) expect(crash.error.errorType).toBe('InternalError')
  })

  it('refuses unknown procedures and calls made as streams', async () => {
    const { client } = createInProcessClient(makeRouter().router)
    const unknown = await (client.call as (p: string, i: unknown) => Promise<Result<unknown>>)('nope.nothing', {})
    expect(unknown.ok).toBe(false)
    if (!unknown.ok) expect(unknown.error.errorType).toBe('UnknownProcedure')
    const prototypeKey = await (client.call as (p: string, i: unknown) => Promise<Result<unknown>>)('constructor', {})
    expect(prototypeKey.ok).toBe(false)
  })

  it('streams events in order and ends with the result', async () => {
    const { client } = createInProcessClient(makeRouter().router)
    const c = collect<{ i: number }, { total: number }>()
    client.stream('ticks.run', { count: 50, gapMs: 0 }, c.handlers)
    expect(await c.ended).toEqual({ ok: true, value: { total: 50 } })
    expect(c.events.map((e) => e.i)).toEqual([...Array(50).keys()])
  })

  it('reports a stream that fails midway as an error result after the events so far', async () => {
    const { client } = createInProcessClient(makeRouter().router)
    const c = collect<{ i: number }, void>()
    client.stream('ticks.broken', {}, c.handlers)
    const end = await c.ended
    expect(c.events).toEqual([{ i: 0 }])
    expect(end).toEqual({ ok: false, error: { errorType: 'StreamChunkError', message: 'bad chunk' } })
  })

  it('refuses a stream whose input fails validation', async () => {
    const { client } = createInProcessClient(makeRouter().router)
    const refused = await new Promise<string>((resolve) =>
      client.stream('ticks.run', { count: -1, gapMs: 0 }, { onRefused: (e) => resolve(e.message) })
    )
    expect(refused).toContain('count')
  })

  it('keeps a stream running when its subscriber detaches, and a new subscriber re-attaches from any point', async () => {
    const { router } = makeRouter()
    const first = createInProcessClient(router)
    const seen: number[] = []
    const handle = first.client.stream('ticks.run', { count: 30, gapMs: 2 }, { onEvent: (e) => seen.push(e.i) })
    const sid = await handle.streamId
    await vi.waitFor(() => expect(seen.length).toBeGreaterThan(0))
    handle.detach()
    first.close() // the window closed
    const countAtDetach = seen.length
    expect(countAtDetach).toBeLessThan(30)

    const second = createInProcessClient(router)
    const c = collect<{ i: number }, { total: number }>()
    second.client.attach('ticks.run', sid, c.handlers, 5)
    expect(await c.ended).toEqual({ ok: true, value: { total: 30 } })
    expect(c.events.map((e) => e.i)).toEqual([...Array(30).keys()].slice(5))
    expect(seen.length).toBe(countAtDetach) // nothing delivered after detach
  })

  it('cancels a stream in the core when asked explicitly', async () => {
    const { router, wasCancelled } = makeRouter()
    const { client } = createInProcessClient(router)
    const c = collect<{ i: number }, { total: number }>()
    const handle = client.stream('ticks.run', { count: 1000, gapMs: 2 }, c.handlers)
    await vi.waitFor(() => expect(c.events.length).toBeGreaterThan(0))
    handle.cancel()
    const end = await c.ended
    expect(end.ok).toBe(false)
    if (!end.ok) expect(end.error.message).toBe('Request was cancelled')
    expect(wasCancelled()).toBe(true)
    expect(c.events.length).toBeLessThan(1000)
  })

  it('re-attaching to an unknown stream is refused with a clear error', async () => {
    const { client } = createInProcessClient(makeRouter().router)
    const error = await new Promise<string>((resolve) =>
      client.attach('ticks.run', 'no-such-stream', { onRefused: (e) => resolve(e.errorType) })
    )
    expect(error).toBe('UnknownStream')
  })

  it('passes only plain data across (structured clone)', async () => {
    const router = new Router({ 'x.date': call<{ when: Date }>()(z.object({})) }, { 'x.date': () => ({ when: new Date(0) }) })
    const { client } = createInProcessClient(router)
    const r = await client.call('x.date', {})
    expect(r).toEqual({ ok: true, value: { when: new Date(0) } })
  })
})

describe('access password', () => {
  it('answers nothing but app-level info until the password is given', async () => {
    const { router } = makeRouter()
    const access = { password: 'correct horse', sessionKeys: new Set<string>() }
    const { client } = createInProcessClient(router, { access })
    const locked = await client.call('math.add', { a: 1, b: 2 })
    expect(locked.ok).toBe(false)
    if (!locked.ok) {
      expect(locked.error.errorType).toBe('InvalidAccessCode')
      expect(locked.error.message).toMatch(/password is wrong or empty/i)
    }
    const wrong = await client.authenticate({ password: 'nope' })
    expect(wrong.ok).toBe(false)
    const empty = await client.authenticate({ password: '' })
    expect(empty.ok).toBe(false)
    const right = await client.authenticate({ password: 'correct horse' })
    expect(right.ok).toBe(true)
    expect(await client.call('math.add', { a: 1, b: 2 })).toEqual({ ok: true, value: { sum: 3 } })

    // A second connection can resume with the session key instead of the password.
    const other = createInProcessClient(router, { access })
    if (!right.ok) throw new Error('unreachable')
    expect((await other.client.authenticate({ sessionKey: right.value.sessionKey })).ok).toBe(true)
    expect((await other.client.call('math.add', { a: 2, b: 2 })).ok).toBe(true)
  })
})
