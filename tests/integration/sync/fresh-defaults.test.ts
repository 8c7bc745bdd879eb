import { afterEach, describe, expect, it } from 'vitest'
import { contents, later, newFolderStore, openDevice, type Device } from './devices'

// A new install creates what every install starts with (the default agent, under one id on every
// device). Those rows are not edits: a device set up after months of use must not reset what the
// user changed in them on the devices already syncing, however much later it was installed.

const opened: Device[] = []
afterEach(async () => {
  for (const d of opened.splice(0)) await d.close().catch(() => undefined)
})

async function device(name: string, skewMs = 0) {
  const d = await openDevice(name, { skewMs })
  opened.push(d)
  return d
}
const svc = (d: Device) => d.core.services()

describe('a device installed later joins', () => {
  it('keeps the default agent as the devices already syncing edited it', async () => {
    const store = newFolderStore()
    const a = await device('A')
    const agent = svc(a).chat.defaultAgent()
    svc(a).store.agents.update(agent.id, { name: 'My assistant', systemPrompt: 'Answer in French.' })
    await a.setup(store)
    await a.sync()

    await later()
    // Installed afterwards: its first screen creates the default agent, untouched.
    const b = await device('B')
    expect(svc(b).chat.defaultAgent().id).toBe(agent.id)
    await b.setup(store)
    await b.sync()
    await a.sync()
    await b.sync()
    for (const d of [a, b]) {
      const kept = svc(d).store.agents.require(agent.id)
      expect(kept.name, d.name).toBe('My assistant')
      expect(kept.systemPrompt, d.name).toBe('Answer in French.')
    }
    expect(contents(b)).toEqual(contents(a))
  })

  it('keeps it even when the devices already syncing were set up before the edit, and the new one runs an hour ahead', async () => {
    const store = newFolderStore()
    const a = await device('A')
    const agent = svc(a).chat.defaultAgent()
    await a.setup(store)
    await a.sync()
    svc(a).store.agents.update(agent.id, { systemPrompt: 'Be brief.' })
    await a.sync()

    const b = await device('B', 60 * 60 * 1000)
    svc(b).chat.defaultAgent()
    await b.setup(store)
    await b.sync()
    await a.sync()
    for (const d of [a, b]) expect(svc(d).store.agents.require(agent.id).systemPrompt, d.name).toBe('Be brief.')
  })

  it('edited on both before either synced: the later edit wins, whichever device is set up last', async () => {
    const store = newFolderStore()
    const a = await device('A')
    const b = await device('B')
    const agent = svc(a).chat.defaultAgent()
    svc(b).chat.defaultAgent()
    svc(b).store.agents.update(agent.id, { name: 'Earlier, on B', systemPrompt: 'Only B set this.' })
    await later()
    svc(a).store.agents.update(agent.id, { name: 'Later, on A' })
    await later()
    await a.setup(store)
    await a.sync()
    await later()
    await b.setup(store)
    await b.sync()
    await a.sync()
    for (const d of [a, b]) {
      const kept = svc(d).store.agents.require(agent.id)
      expect(kept.name, d.name).toBe('Later, on A')
      expect(kept.systemPrompt, d.name).toBe('Only B set this.')
    }
  })

  it('two untouched installs end with the same default agent, every column, and report no conflict', async () => {
    const store = newFolderStore()
    const a = await device('A')
    svc(a).chat.defaultAgent()
    await a.setup(store)
    await a.sync()
    await later()
    const b = await device('B')
    svc(b).chat.defaultAgent()
    await b.setup(store)
    const joined = await b.sync()
    const back = await a.sync()
    for (const status of [joined, back]) expect(status.lastMerge?.conflicts ?? 0).toBe(0)
    const row = (d: Device) => d.core.services().store.db.sqlite.prepare('SELECT * FROM agents').all()
    expect(row(b)).toEqual(row(a))
    expect(row(a)).toHaveLength(1)
  })

  it('an edit made on the new device after it was installed still wins over an older one', async () => {
    const store = newFolderStore()
    const a = await device('A')
    const agent = svc(a).chat.defaultAgent()
    svc(a).store.agents.update(agent.id, { systemPrompt: 'Older, on A.' })
    await a.setup(store)
    await a.sync()
    await later()
    const b = await device('B')
    svc(b).chat.defaultAgent()
    await later()
    svc(b).store.agents.update(agent.id, { systemPrompt: 'Newer, on B before it joined.' })
    await b.setup(store)
    await b.sync()
    await a.sync()
    for (const d of [a, b]) expect(svc(d).store.agents.require(agent.id).systemPrompt, d.name).toBe('Newer, on B before it joined.')
  })
})
