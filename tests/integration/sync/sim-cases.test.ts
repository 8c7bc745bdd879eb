import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { SyncStoreError, type SyncStore } from '../../../src/core/sync/store'
import { converge, later, openDevice, text, type Device } from './devices'
import { MemoryStore } from './memory-store'

// Divergences the sync simulation (sync-sim.test.ts) found, each alone, with the seed that found it.

const opened: Device[] = []
afterEach(async () => {
  for (const d of opened.splice(0)) await d.close().catch(() => undefined)
})

const svc = (d: Device) => d.core.services()

/** Devices on one store in memory; `lose.next` makes a device's next segment put store its body and then fail. */
async function devices(names: string[]) {
  const store = new MemoryStore()
  const folder = { kind: 'folder' as const, path: mkdtempSync(join(tmpdir(), 'sb-sync-lost-')) }
  const lose = new Map<string, boolean>()
  const list: Device[] = []
  for (const name of names) {
    const view = (): SyncStore => {
      const v = store.open()
      const put = v.put.bind(v)
      v.put = async (key, body) => {
        await put(key, body)
        if (key.startsWith('segments/') && lose.get(name)) {
          lose.set(name, false)
          throw new SyncStoreError('SyncStoreUnreachable', 'answer lost')
        }
      }
      return v
    }
    const d = await openDevice(name, { store: view })
    opened.push(d)
    await d.setup(folder)
    list.push(d)
  }
  return { store, lose, list }
}

/** `d` opened again, so its clock no longer knows the stamps it issued, with its wall clock 10 minutes behind. */
async function restartedBehind(d: Device): Promise<Device> {
  const again = await d.reopen()
  opened.push(again)
  again.skew.ms = -600_000
  return again
}

describe('sync: cases the simulation found', () => {
  it('a segment stored with its answer lost, read by another device and then lost by the store: its number is not written again (seed 189)', async () => {
    const { store, lose, list } = await devices(['A', 'B'])
    const [a, b] = list as [Device, Device]
    await converge(list)
    const conv = svc(a).store.conversations.create({ agentId: svc(a).chat.defaultAgent().id, title: 'first' })
    lose.set('A', true)
    await a.sync().catch(() => undefined)
    // B reads the segment A does not know it wrote; then the store loses it.
    await b.sync()
    expect(svc(b).store.conversations.get(conv.id)?.title).toBe('first')
    const written = [...store.objects.keys()].filter((k) => k.startsWith(`segments/${svc(a).sync.status().deviceId}/`)).pop()!
    store.objects.delete(written)
    svc(a).store.conversations.update(conv.id, { title: 'second' })
    await converge(list)
    expect(svc(b).store.conversations.get(conv.id)?.title).toBe('second')
  })

  it('an edit made after a restart on a clock running behind is stamped after what it replaces (seed 121)', async () => {
    const { list } = await devices(['A', 'B'])
    const b = list[1]!
    let a = list[0]!
    const conv = svc(a).store.conversations.create({ agentId: svc(a).chat.defaultAgent().id, title: 'first' })
    await converge([a, b])
    a = await restartedBehind(a)
    svc(a).store.conversations.update(conv.id, { title: 'second' })
    await converge([a, b])
    expect(svc(a).store.conversations.get(conv.id)?.title).toBe('second')
    expect(svc(b).store.conversations.get(conv.id)?.title).toBe('second')
  })

  it('a deletion made after a restart on a clock running behind is stamped after the record it deletes', async () => {
    const { list } = await devices(['A', 'B'])
    const b = list[1]!
    let a = list[0]!
    const conv = svc(a).store.conversations.create({ agentId: svc(a).chat.defaultAgent().id, title: 'first' })
    await converge([a, b])
    a = await restartedBehind(a)
    svc(a).store.conversations.delete(conv.id)
    await converge([a, b])
    expect(svc(a).store.conversations.get(conv.id)).toBeUndefined()
    expect(svc(b).store.conversations.get(conv.id)).toBeUndefined()
  })

  it('a message written in a conversation another device deleted unseen brings it back on every device that reads both, in either order (seed 219)', async () => {
    const { list } = await devices(['A', 'B', 'C'])
    const [a, b, c] = list as [Device, Device, Device]
    const conv = svc(a).store.conversations.create({ agentId: svc(a).chat.defaultAgent().id, title: 'kept' })
    await converge(list)
    const m = svc(a).store.messages.create({ conversationId: conv.id, role: 'user', content: text('written unseen') })
    await a.sync()
    // C deletes it later, not having read A's message yet; its round reads the message after its own deletion.
    await later()
    svc(c).store.conversations.delete(conv.id)
    await c.sync()
    // B reads A's segment and C's, in the order of their device ids.
    await b.sync()
    for (const d of list) {
      expect(svc(d).store.conversations.get(conv.id)?.title, `${d.name} keeps the conversation`).toBe('kept')
      expect(svc(d).store.messages.get(m.id), `${d.name} holds the message`).toBeDefined()
    }
  })

  it('a reply its writer deleted stays deleted, though a device that had not seen the deletion moved it up when it came (seed 858)', async () => {
    const { list } = await devices(['A', 'C'])
    const [a, c] = list as [Device, Device]
    const conv = svc(a).store.conversations.create({ agentId: svc(a).chat.defaultAgent().id, title: 'talk' })
    const first = svc(a).store.messages.create({ conversationId: conv.id, role: 'user', content: text('first') })
    const answered = svc(a).store.messages.create({ conversationId: conv.id, role: 'assistant', content: text('answered'), parentId: first.id })
    await converge(list)
    // A writes a reply and sends it; C deletes the message it answers before it reads the reply.
    const reply = svc(a).store.messages.create({ conversationId: conv.id, role: 'user', content: text('reply'), parentId: answered.id })
    await a.sync()
    svc(c).chat.deleteMessage(answered.id)
    await later()
    // A deletes its reply later, before it hears from C.
    svc(a).chat.deleteMessage(reply.id)
    // C reads the reply after its parent is gone there, and moves it up; then each hears the other.
    await c.sync()
    await a.sync()
    await converge(list)
    for (const d of list) expect(svc(d).store.messages.get(reply.id), `${d.name}: the reply A deleted`).toBeUndefined()
  })

  it('a reply that comes after the message it answers was deleted here moves up and is shown, as one held at the deletion does (seed 495)', async () => {
    const { list } = await devices(['A', 'B', 'C'])
    const [a, b, c] = list as [Device, Device, Device]
    const conv = svc(a).store.conversations.create({ agentId: svc(a).chat.defaultAgent().id, title: 'talk' })
    const first = svc(a).store.messages.create({ conversationId: conv.id, role: 'user', content: text('first') })
    const answered = svc(a).store.messages.create({ conversationId: conv.id, role: 'assistant', content: text('answered'), parentId: first.id })
    await converge(list)
    const reply = svc(a).store.messages.create({ conversationId: conv.id, role: 'user', content: text('reply'), parentId: answered.id })
    await a.sync()
    // C deletes the message answered before it reads the reply.
    svc(c).chat.deleteMessage(answered.id)
    await c.sync()
    await b.sync()
    await a.sync()
    for (const d of list) {
      const messages = svc(d).store.messages.list(conv.id)
      const ids = new Set(messages.map((m) => m.id))
      expect(ids.has(reply.id), `${d.name} holds the reply`).toBe(true)
      expect(messages.filter((m) => m.parentId !== undefined && !ids.has(m.parentId)).map((m) => m.id), `${d.name}: messages not shown`).toEqual([])
    }
  })
})
