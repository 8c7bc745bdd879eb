import { afterEach, describe, expect, it } from 'vitest'
import { REPLACED_KEPT } from '../../../src/core/sync/change-log'
import type { SyncReplacedEdit } from '../../../src/shared/bridge/procedures/sync'
import { contents, converge, later, newFolderStore, openDevice, type Device } from './devices'

// Two devices changed the same field: the later edit is kept on both. The earlier one is not
// lost: the device that held it lists it (Settings → Sync) and can bring it back.

const opened: Device[] = []
afterEach(async () => {
  for (const d of opened.splice(0)) await d.close().catch(() => undefined)
})

const svc = (d: Device) => d.core.services()
async function pair() {
  const store = newFolderStore()
  const list: Device[] = []
  for (const name of ['A', 'B']) {
    const d = await openDevice(name)
    opened.push(d)
    await d.setup(store)
    list.push(d)
  }
  return list as [Device, Device]
}
const replaced = (d: Device) => d.call('sync.replacedEdits', {}) as Promise<SyncReplacedEdit[]>
/** A edits, then B a moment later without having seen A's edit; B's round, then A's (which takes B's later edit). */
async function editedOnBoth(a: Device, b: Device, onA: () => unknown, onB: () => unknown) {
  onA()
  await later()
  onB()
  await b.sync()
  await a.sync()
}
/** A writes `long` as the default agent's prompt, B a short one a moment later: A's is the replaced edit. */
async function longPromptReplaced(long: string) {
  const [a, b] = await pair()
  const agent = svc(a).chat.defaultAgent()
  await converge([a, b])
  await editedOnBoth(
    a,
    b,
    () => svc(a).store.agents.update(agent.id, { systemPrompt: long }),
    () => svc(b).store.agents.update(agent.id, { systemPrompt: 'Short, later, from B.' })
  )
  const [edit] = await replaced(a)
  return { a, b, agent, edit: edit! }
}

describe('edits replaced by a later one from another device', () => {
  it('are listed where they were made, with what replaced them and who, and can be brought back on every device', async () => {
    const [a, b] = await pair()
    const agent = svc(a).chat.defaultAgent()
    const trip = svc(a).store.conversations.create({ agentId: agent.id, title: 'Trip' })
    await converge([a, b])
    svc(a).store.conversations.update(trip.id, { title: 'Trip to Lisbon (A)' })
    svc(a).store.agents.update(agent.id, { systemPrompt: 'Prompt written on A' })
    svc(a).store.settings.set({ theme: 'dark' })
    await later()
    svc(b).store.conversations.update(trip.id, { title: 'Trip to Porto (B, later)' })
    svc(b).store.agents.update(agent.id, { systemPrompt: 'Prompt written on B, later' })
    svc(b).store.settings.set({ theme: 'light' })
    await a.sync()
    await b.sync()
    await a.sync()
    expect(svc(a).store.conversations.get(trip.id)?.title).toBe('Trip to Porto (B, later)')

    const onA = await replaced(a)
    const byField = Object.fromEntries(onA.map((e) => [`${e.table}.${e.field}`, e]))
    expect(Object.keys(byField).sort()).toEqual(['agents.system_prompt', 'conversations.title', 'settings.value'])
    expect(byField['conversations.title']).toMatchObject({ key: trip.id, label: 'Trip to Porto (B, later)', replaced: 'Trip to Lisbon (A)', kept: 'Trip to Porto (B, later)', keptBy: 'B' })
    expect(byField['agents.system_prompt']).toMatchObject({ label: 'Just Chat', replaced: 'Prompt written on A', kept: 'Prompt written on B, later' })
    expect(byField['settings.value']).toMatchObject({ label: 'theme', replaced: '"dark"', kept: '"light"' })
    // B kept its own edits: nothing of its was replaced.
    expect(await replaced(b)).toEqual([])

    // Brought back on A: an edit made now, so it wins on both.
    const left = (await a.call('sync.bringBack', { id: byField['conversations.title']!.id })) as SyncReplacedEdit[]
    expect(left.map((e) => e.field).sort()).toEqual(['system_prompt', 'value'])
    await a.call('sync.bringBack', { id: byField['settings.value']!.id })
    expect(svc(a).store.settings.get().theme).toBe('dark')
    await converge([a, b])
    for (const d of [a, b]) {
      expect(svc(d).store.conversations.get(trip.id)?.title, d.name).toBe('Trip to Lisbon (A)')
      expect(svc(d).store.settings.get().theme, d.name).toBe('dark')
    }
    // A brought them back after seeing B's: an edit made in view of B's, not a conflict on B.
    expect(await replaced(b)).toEqual([])
    expect(contents(b)).toEqual(contents(a))
  })

  it('different fields of one record changed on each device: both kept, no conflict counted, nothing listed', async () => {
    const [a, b] = await pair()
    const agent = svc(a).chat.defaultAgent()
    const trip = svc(a).store.conversations.create({ agentId: agent.id, title: 'Trip' })
    await converge([a, b])
    svc(a).store.conversations.update(trip.id, { title: 'Trip, renamed on A' })
    await later()
    svc(b).store.conversations.update(trip.id, { pinned: true })
    const statuses = [await a.sync(), await b.sync(), await a.sync()]
    for (const d of [a, b]) expect(svc(d).store.conversations.get(trip.id)).toMatchObject({ title: 'Trip, renamed on A', pinned: true })
    // Both edits moved updated_at: a time, not an edit of the user's, so no conflict.
    for (const status of statuses) expect(status.lastMerge?.conflicts ?? 0).toBe(0)
    for (const d of [a, b]) expect(await replaced(d)).toEqual([])
  })

  it('an edit made after seeing this device’s (renamed here, then renamed again there) is no conflict', async () => {
    const [a, b] = await pair()
    const agent = svc(a).chat.defaultAgent()
    const trip = svc(a).store.conversations.create({ agentId: agent.id, title: 'Trip' })
    await converge([a, b])
    svc(a).store.conversations.update(trip.id, { title: 'Trip, named on A' })
    await converge([a, b])
    svc(b).store.conversations.update(trip.id, { title: 'Trip, renamed on B after seeing A’s' })
    const statuses = [await b.sync(), await a.sync()]
    expect(svc(a).store.conversations.get(trip.id)?.title).toBe('Trip, renamed on B after seeing A’s')
    for (const status of statuses) expect(status.lastMerge?.conflicts ?? 0).toBe(0)
    for (const d of [a, b]) expect(await replaced(d)).toEqual([])
  })

  it('one whose record was deleted since, or no longer listed, is refused and changes nothing', async () => {
    const [a, b] = await pair()
    const agent = svc(a).chat.defaultAgent()
    const doomed = svc(a).store.conversations.create({ agentId: agent.id, title: 'Doomed' })
    await converge([a, b])
    await editedOnBoth(
      a,
      b,
      () => svc(a).store.conversations.update(doomed.id, { title: 'A’s title' }),
      () => svc(b).store.conversations.update(doomed.id, { title: 'B’s title' })
    )
    const [edit] = await replaced(a)
    svc(a).store.conversations.delete(doomed.id)
    expect((await replaced(a))[0]).toMatchObject({ id: edit!.id, label: null })
    await expect(a.call('sync.bringBack', { id: edit!.id })).rejects.toMatchObject({ errorType: 'NotFound' })
    expect(svc(a).store.conversations.get(doomed.id)).toBeUndefined()
    await expect(a.call('sync.bringBack', { id: 999_999 })).rejects.toMatchObject({ errorType: 'NotFound' })
  })

  it('one that names a record deleted since (a conversation moved to an agent now gone) is refused and changes nothing', async () => {
    const [a, b] = await pair()
    const first = svc(a).chat.defaultAgent()
    const mine = svc(a).store.agents.create({ name: 'Mine, deleted later' })
    const theirs = svc(a).store.agents.create({ name: 'Theirs' })
    const moved = svc(a).store.conversations.create({ agentId: first.id, title: 'Moved on both' })
    await converge([a, b])
    await editedOnBoth(
      a,
      b,
      () => svc(a).store.conversations.update(moved.id, { agentId: mine.id }),
      () => svc(b).store.conversations.update(moved.id, { agentId: theirs.id })
    )
    const edit = (await replaced(a)).find((e) => e.field === 'agent_id')!
    expect(edit).toMatchObject({ replaced: mine.id, kept: theirs.id })
    svc(a).store.agents.delete(mine.id)
    await expect(a.call('sync.bringBack', { id: edit.id })).rejects.toMatchObject({ errorType: 'NotFound', message: expect.stringContaining('deleted since') })
    expect(svc(a).store.conversations.get(moved.id)?.agentId).toBe(theirs.id)
  })

  it('lists a long value cut short, and brings back the whole of it', async () => {
    const long = 'A long prompt. '.repeat(20_000)
    const { a, b, agent, edit } = await longPromptReplaced(long)
    expect(String(edit.replaced).length).toBeLessThan(1_000)
    expect(long.startsWith(String(edit.replaced).slice(0, -1))).toBe(true)
    await a.call('sync.bringBack', { id: edit.id })
    await converge([a, b])
    for (const d of [a, b]) expect(svc(d).store.agents.require(agent.id).systemPrompt, d.name).toBe(long)
  })

  it('on a full disk: refused with the fix, the value and the entry kept', async () => {
    const { a, agent, edit } = await longPromptReplaced('A long prompt from A. '.repeat(20_000))
    const sqlite = svc(a).store.db.sqlite
    sqlite.pragma(`max_page_count = ${sqlite.pragma('page_count', { simple: true }) as number}`)
    await expect(a.call('sync.bringBack', { id: edit.id })).rejects.toMatchObject({ errorType: 'DiskFull', message: expect.stringContaining(a.dataDir) })
    sqlite.pragma('max_page_count = 1073741823')
    expect(svc(a).store.agents.require(agent.id).systemPrompt).toBe('Short, later, from B.')
    expect((await replaced(a)).map((e) => e.id)).toEqual([edit.id])
  })

  it(`keeps the newest ${REPLACED_KEPT}`, async () => {
    const [a, b] = await pair()
    const agent = svc(a).chat.defaultAgent()
    const ids = Array.from({ length: REPLACED_KEPT + 5 }, (_, i) => svc(a).store.conversations.create({ agentId: agent.id, title: `c${i}` }).id)
    await converge([a, b])
    await editedOnBoth(
      a,
      b,
      () => ids.forEach((id) => svc(a).store.conversations.update(id, { title: `${id} on A` })),
      () => ids.forEach((id) => svc(b).store.conversations.update(id, { title: `${id} on B` }))
    )
    const list = await replaced(a)
    expect(list).toHaveLength(REPLACED_KEPT)
    expect(new Set(list.map((e) => e.replaced)).size).toBe(REPLACED_KEPT)
  })
})
