import { mkdtempSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { contents, openDevice, text, type Device } from './devices'

const opened: Device[] = []
afterEach(async () => {
  for (const d of opened.splice(0)) await d.close().catch(() => undefined)
})

async function devices(n: number, options: { skews?: number[] } = {}) {
  const folder = mkdtempSync(join(tmpdir(), 'sb-sync-store-'))
  const list: Device[] = []
  for (let i = 0; i < n; i++) {
    const d = await openDevice(String.fromCharCode(65 + i), { skewMs: options.skews?.[i] ?? 0 })
    opened.push(d)
    list.push(d)
  }
  const store = { kind: 'folder' as const, path: folder }
  for (const d of list) await d.setup(store)
  return { folder, store, list }
}

const svc = (d: Device) => d.core.services()
const agentOf = (d: Device) => svc(d).chat.defaultAgent().id

/** Rounds until nothing moves: each device syncs twice, in turn. */
async function converge(list: Device[]) {
  for (let i = 0; i < 2; i++) for (const d of list) await d.sync()
}

describe('sync through a folder store', () => {
  it('two devices edited offline converge: both new records kept, the later edit of a field wins', async () => {
    const { list } = await devices(2)
    const [a, b] = list as [Device, Device]
    await converge(list)
    const shared = svc(a).store.conversations.create({ agentId: agentOf(a), title: 'Shared' })
    svc(a).store.messages.create({ conversationId: shared.id, role: 'user', content: text('hello from A') })
    await converge(list)
    expect(svc(b).store.conversations.get(shared.id)?.title).toBe('Shared')

    // Offline: each adds its own conversation and both rename the shared one; B renames later.
    const onA = svc(a).store.conversations.create({ agentId: agentOf(a), title: 'Only on A' })
    const onB = svc(b).store.conversations.create({ agentId: agentOf(b), title: 'Only on B' })
    svc(a).store.conversations.update(shared.id, { title: 'A renamed' })
    await new Promise((r) => setTimeout(r, 20))
    svc(b).store.conversations.update(shared.id, { title: 'B renamed', pinned: true })
    svc(a).store.messages.create({ conversationId: shared.id, role: 'user', content: text('A offline') })
    svc(b).store.messages.create({ conversationId: shared.id, role: 'user', content: text('B offline') })
    // B reconnects first, then A: the order must not matter.
    await b.sync()
    await a.sync()
    await converge(list)
    expect(contents(a)).toEqual(contents(b))
    expect(svc(a).store.conversations.get(onB.id)?.title).toBe('Only on B')
    expect(svc(b).store.conversations.get(onA.id)?.title).toBe('Only on A')
    expect(svc(a).store.conversations.get(shared.id)).toMatchObject({ title: 'B renamed', pinned: true })
    expect(svc(a).store.messages.list(shared.id).map((m) => m.content[0])).toHaveLength(3)
    const status = await a.call('sync.status', {})
    expect(status).toMatchObject({ state: 'idle', pendingChanges: 0 })
  })

  it('applying another device’s changes does not send them back (no echo)', async () => {
    const { list, folder } = await devices(2)
    const [a, b] = list as [Device, Device]
    svc(a).store.conversations.create({ agentId: agentOf(a), title: 'Once' })
    await converge(list)
    const segmentsOf = (d: Device) => readdirSync(join(folder, 'segments', svc(d).sync.status().deviceId)).length
    const before = segmentsOf(b)
    await b.sync()
    await b.sync()
    expect(segmentsOf(b)).toBe(before)
    expect(svc(b).sync.status().pendingChanges).toBe(0)
  })
})
