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

  it('keeps only the newest states of a knowledge run, however many files it indexes', async () => {
    const hub = new StreamHub()
    const id = hub.start('knowledge.index', () => count(5_000), { kind: 'knowledge', meta: { kbId: 'kb' } })
    await vi.waitFor(() => expect(hub.running()).toEqual([]))
    const all = await replay(hub, id, 0)
    expect(all.events).toHaveLength(1_000)
    expect(all.first).toBe(4_000)
    expect(all.events.at(-1)).toBe(4_999)
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

describe('stream hub as the task registry', () => {
  it('lists described streams by kind while they run, follows metadata changes, and forgets them when they end', async () => {
    const hub = new StreamHub()
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    async function* held() {
      yield 1
      await gate
      return 'ok'
    }
    const plain = hub.start('diag.count', () => held())
    const pull = hub.start('local.pull.watch', () => held(), { kind: 'pull', meta: { pullId: 'p1', model: 'm', baseUrl: 'http://x' } })
    const reply = hub.start('chat.send', () => held())
    hub.describe(reply, 'chat', { conversationId: 'c1', messageId: 'm1' })
    hub.describe(reply, 'chat', { conversationId: 'c1', messageId: 'm2' }) // a tool step moved the reply on
    expect(hub.tasks().map((t) => t.id)).toEqual([pull, reply])
    expect(hub.tasks('chat')).toEqual([{ id: reply, kind: 'chat', meta: { conversationId: 'c1', messageId: 'm2' }, startedAt: expect.any(Number) }])
    expect(hub.find('chat', (m) => m.messageId === 'm2')?.id).toBe(reply)
    expect(hub.find('chat', (m) => m.messageId === 'm1')).toBeUndefined()
    expect(hub.running()).toContain(plain) // a stream that is not described is no task
    release()
    await vi.waitFor(() => expect(hub.running()).toEqual([]))
    expect(hub.tasks()).toEqual([])
    hub.describe(reply, 'chat', { conversationId: 'c1', messageId: 'm3' }) // too late: it ended
    expect(hub.tasks()).toEqual([])
  })
})
