import { afterEach, describe, expect, it } from 'vitest'
import { contents, converge, later, newFolderStore, openDevice, text, type Device } from './devices'

// Disconnect, then set up again: the stamps this device holds are the true times of its changes
// and are kept, so deletions and edits other devices made meanwhile still win over what it held.

const opened: Device[] = []
afterEach(async () => {
  for (const d of opened.splice(0)) await d.close().catch(() => undefined)
})

async function device(name: string) {
  const d = await openDevice(name)
  opened.push(d)
  return d
}
const svc = (d: Device) => d.core.services()
const agentOf = (d: Device) => svc(d).chat.defaultAgent().id
const create = (d: Device, title: string) => svc(d).store.conversations.create({ agentId: agentOf(d), title })
const titleOf = (d: Device, id: string) => svc(d).store.conversations.get(id)?.title
type Listed = Array<{ id: string; name: string; current: boolean }>


describe('disconnect, then set up again', () => {
  it('with the same store: what others deleted or edited later meanwhile wins there; what it changed meanwhile is sent', async () => {
    const store = newFolderStore()
    const [a, b] = [await device('A'), await device('B')]
    for (const d of [a, b]) await d.setup(store)
    const doomed = create(a, 'Deleted on A while B is away')
    const doomedMessage = svc(a).store.messages.create({ conversationId: doomed.id, role: 'user', content: text('goes with it') })
    const renamed = create(a, 'Renamed on A while B is away')
    const both = create(a, 'Renamed on both while apart')
    const onB = create(a, 'Renamed on B while away')
    const droppedOnB = create(a, 'Deleted on B while away')
    const unsent = create(a, 'Renamed on B, not sent before Disconnect')
    const halfSent = create(a, 'Renamed on B, its segment cut off before Disconnect')
    await converge([a, b])
    const bId = svc(b).sync.status().deviceId

    // Stamped, and its segment only half written (killed mid-upload); then one noted, not even stamped.
    svc(b).store.conversations.update(halfSent.id, { title: 'B, half sent at Disconnect' })
    b.fault.halfPut = true
    expect((await b.sync()).state).toBe('offline')
    b.fault.halfPut = false
    svc(b).store.conversations.update(unsent.id, { title: 'B, unsent at Disconnect' })
    await b.call('sync.disconnect', {})
    // Its key leaves the keychain.
    expect(await svc(b).secrets.readForRuntime(`sync:key:${bId}`)).toBeUndefined()
    // While apart: B's changes first, A's later.
    svc(b).store.conversations.update(both.id, { title: 'B while away (earlier)' })
    svc(b).store.conversations.update(onB.id, { title: 'B while away' })
    svc(b).store.conversations.delete(droppedOnB.id)
    const added = create(b, 'Created on B while away')
    await later()
    svc(a).store.conversations.delete(doomed.id)
    svc(a).store.conversations.update(renamed.id, { title: 'A, later' })
    svc(a).store.conversations.update(both.id, { title: 'A while B away (later)' })
    await a.sync()

    await b.setup(store)
    await b.sync()
    await a.sync()
    await converge([a, b])
    for (const d of [a, b]) {
      expect(svc(d).store.conversations.get(doomed.id)).toBeUndefined()
      expect(svc(d).store.messages.get(doomedMessage.id)).toBeUndefined()
      expect(titleOf(d, renamed.id)).toBe('A, later')
      expect(titleOf(d, both.id)).toBe('A while B away (later)')
      expect(titleOf(d, onB.id)).toBe('B while away')
      expect(svc(d).store.conversations.get(droppedOnB.id)).toBeUndefined()
      expect(titleOf(d, added.id)).toBe('Created on B while away')
      expect(titleOf(d, unsent.id)).toBe('B, unsent at Disconnect')
      expect(titleOf(d, halfSent.id)).toBe('B, half sent at Disconnect')
      expect(svc(d).sync.status().pendingChanges).toBe(0)
    }
    expect(contents(a)).toEqual(contents(b))
    // B is the same device again, not a second "B" beside the one that left.
    expect(((await a.call('sync.devices', {})) as Listed).map((d) => d.name).sort()).toEqual(['A', 'B'])
    expect(svc(b).sync.status().deviceId).toBe(bId)
  })

  it('with the same store after another device forgot it: told to join again as a new device, which then works', async () => {
    const store = newFolderStore()
    const [a, b] = [await device('A'), await device('B')]
    for (const d of [a, b]) await d.setup(store)
    const doomed = create(a, 'Deleted on A while B is away')
    await converge([a, b])
    const bId = svc(b).sync.status().deviceId
    await b.call('sync.disconnect', {})
    const added = create(b, 'Created on B while away')
    svc(a).store.conversations.delete(doomed.id)
    await a.call('sync.forgetDevice', { deviceId: bId })
    await a.sync()
    await b.setup(store)
    const status = (await b.sync()) as { state: string; error?: { code: string } }
    expect(status).toMatchObject({ state: 'error', error: { code: 'SyncDeviceForgotten' } })
    expect(await b.call('sync.rejoin', {})).toMatchObject({ state: 'idle' })
    await converge([a, b])
    for (const d of [a, b]) {
      expect(svc(d).store.conversations.get(doomed.id)).toBeUndefined()
      expect(titleOf(d, added.id)).toBe('Created on B while away')
    }
    expect(contents(a)).toEqual(contents(b))
  })

  it('with another store, one device after the other: each sends everything it holds with its own stamps, the later change wins', async () => {
    const first = newFolderStore()
    const [a, b] = [await device('A'), await device('B')]
    for (const d of [a, b]) await d.setup(first)
    const doomed = create(a, 'Deleted on A before the move')
    const renamed = create(a, 'Renamed on A before the move')
    const onB = create(a, 'Renamed on B while away')
    svc(a).store.messages.create({ conversationId: onB.id, role: 'user', content: text('a message') })
    await converge([a, b])

    await b.call('sync.disconnect', {})
    svc(b).store.conversations.update(onB.id, { title: 'B while away' })
    const added = create(b, 'Created on B while away')
    await later()
    svc(a).store.conversations.delete(doomed.id)
    svc(a).store.conversations.update(renamed.id, { title: 'A, later' })
    await a.sync()

    // B moves first, to an empty store: a new device there gets everything B holds.
    const second = newFolderStore()
    await b.setup(second)
    await b.sync()
    const c = await device('C')
    await c.setup(second)
    await converge([b, c])
    expect(contents(c)).toEqual(contents(b))
    expect(titleOf(c, doomed.id)).toBe('Deleted on A before the move')
    expect(titleOf(c, onB.id)).toBe('B while away')
    expect(titleOf(c, added.id)).toBe('Created on B while away')

    // A follows, switching stores without disconnecting: its older rows do not overwrite B's later edit.
    await a.setup(second)
    await converge([a, b, c])
    for (const d of [a, b, c]) {
      expect(svc(d).store.conversations.get(doomed.id)).toBeUndefined()
      expect(titleOf(d, renamed.id)).toBe('A, later')
      expect(titleOf(d, onB.id)).toBe('B while away')
      expect(titleOf(d, added.id)).toBe('Created on B while away')
      expect(svc(d).sync.status().pendingChanges).toBe(0)
    }
    expect(contents(a)).toEqual(contents(b))
    expect(contents(c)).toEqual(contents(a))
    expect(((await c.call('sync.devices', {})) as Listed).map((d) => d.name).sort()).toEqual(['A', 'B', 'C'])
  })
})
