import { describe, expect, it, vi } from 'vitest'
import { StreamHub } from '../../../src/core/bridge/stream-hub'
import type { Result } from '../../../src/shared/errors/app-error'

async function* count(n: number) {
  for (let i = 0; i < n; i++) yield i
  return 'done'
}

function replay(hub: StreamHub, id: string, from: number) {
  return new Promise<{ events: unknown[]; first: number; end: Result<unknown> }>((resolve) => {
    const events: unknown[] = []
    let first = -1
    hub.attach(id, from, {
      events: (batch, start) => {
        if (first < 0) first = start
        events.push(...batch)
      },
      end: (end) => resolve({ events, first, end })
    })
  })
}

describe('stream hub replay cap', () => {
  it('keeps exactly the newest maxLog events, numbered as they were sent, across compactions', async () => {
    const hub = new StreamHub({ maxLog: 3 })
    const id = hub.start('count', () => count(20))
    await vi.waitFor(() => expect(hub.running()).toEqual([]))
    const all = await replay(hub, id, 0)
    expect(all).toEqual({ events: [17, 18, 19], first: 17, end: { ok: true, value: 'done' } })
    const tail = await replay(hub, id, 18)
    expect(tail.events).toEqual([18, 19])
    expect(tail.first).toBe(18)
  })

  it('replays everything when the stream stays under the cap', async () => {
    const hub = new StreamHub({ maxLog: 100 })
    const id = hub.start('count', () => count(10))
    await vi.waitFor(() => expect(hub.running()).toEqual([]))
    const all = await replay(hub, id, 4)
    expect(all.events).toEqual([4, 5, 6, 7, 8, 9])
    expect(all.first).toBe(4)
  })
})
