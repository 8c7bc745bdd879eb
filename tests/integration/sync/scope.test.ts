import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { contents, converge, newFolderStore, openDevice, text, type Device } from './devices'

// "What is synced" is a switch per kind. A kind turned off and on again must not have lost what
// the other devices sent meanwhile, nor what this device wrote meanwhile.

const opened: Device[] = []
afterEach(async () => {
  for (const d of opened.splice(0)) await d.close().catch(() => undefined)
})

const svc = (d: Device) => d.core.services()
async function device(name: string, store: ReturnType<typeof newFolderStore>, options: { compactAfter?: number } = {}) {
  const d = await openDevice(name, options)
  opened.push(d)
  await d.setup(store)
  return d
}
async function pair() {
  const store = newFolderStore()
  return [await device('A', store), await device('B', store)] as [Device, Device]
}

describe('what is synced, switched off and on again', () => {
  it('conversations: what the other device sent meanwhile arrives, and what this one wrote meanwhile is sent', async () => {
    const [a, b] = await pair()
    await converge([a, b])
    await b.call('sync.update', { scope: { conversations: false } })
    const agent = svc(a).chat.defaultAgent().id
    const fromA = svc(a).store.conversations.create({ agentId: agent, title: 'Written on A while B took no conversations' })
    svc(a).store.messages.create({ conversationId: fromA.id, role: 'user', content: text('hello from A') })
    const fromB = svc(b).store.conversations.create({ agentId: agent, title: 'Written on B while it took no conversations' })
    await converge([a, b])
    expect(svc(b).store.conversations.get(fromA.id)).toBeUndefined()
    expect(svc(a).store.conversations.get(fromB.id)).toBeUndefined()

    await b.call('sync.update', { scope: { conversations: true } })
    await converge([a, b])
    expect(svc(b).store.conversations.get(fromA.id)?.title).toBe('Written on A while B took no conversations')
    expect(svc(a).store.conversations.get(fromB.id)?.title).toBe('Written on B while it took no conversations')
    expect(contents(b)).toEqual(contents(a))
  })

  it('agents and settings: the same', async () => {
    const [a, b] = await pair()
    await converge([a, b])
    await b.call('sync.update', { scope: { agents: false, settings: false } })
    const agent = svc(a).store.agents.create({ name: 'Made on A meanwhile' })
    svc(a).store.settings.set({ theme: 'dark' })
    await converge([a, b])
    expect(svc(b).store.agents.get(agent.id)).toBeUndefined()
    await b.call('sync.update', { scope: { agents: true, settings: true } })
    await converge([a, b])
    expect(svc(b).store.agents.get(agent.id)?.name).toBe('Made on A meanwhile')
    expect(contents(b)).toEqual(contents(a))
  })
})

// A snapshot stands for the segments it covers. A device that does not take some kind holds none
// of it, so a snapshot of what it holds must not stand for other devices' segments that carried it.
describe('a device that takes only some kinds, and snapshots', () => {
  it('a device without conversations does not write the snapshot a new device starts from: the new device gets them', async () => {
    const store = newFolderStore()
    const a = await device('A', store)
    const b = await device('B', store, { compactAfter: 2 })
    await b.call('sync.update', { scope: { conversations: false, images: false } })
    const agent = svc(a).chat.defaultAgent().id
    const ids: string[] = []
    for (let i = 0; i < 4; i++) {
      const c = svc(a).store.conversations.create({ agentId: agent, title: `From A, ${i}` })
      svc(a).store.messages.create({ conversationId: c.id, role: 'user', content: text(`message ${i}`) })
      ids.push(c.id)
      await a.sync()
      await b.sync()
    }
    svc(b).store.agents.create({ name: 'From B' })
    await b.sync()
    const c = await device('C', store)
    await converge([a, b, c])
    for (const id of ids) expect(svc(c).store.conversations.get(id)).toBeDefined()
    expect(contents(c)).toEqual(contents(a))
  })

  it('API keys: a new device that takes them gets them even when the newest snapshot is from a device that does not', async () => {
    const store = newFolderStore()
    const a = await device('A', store)
    const b = await device('B', store, { compactAfter: 2 })
    await a.call('sync.update', { scope: { apiKeys: true } })
    await a.call('providers.setKey', { providerId: 'openai', apiKey: 'sk-from-a-0123456789abcdefXYZ' })
    await a.sync()
    for (let i = 0; i < 3; i++) {
      svc(b).store.agents.create({ name: `From B, ${i}` })
      await b.sync()
    }
    expect(readdirSync(join(store.path, 'snapshots')).some((f) => f.endsWith('.snap'))).toBe(true)
    const c = await openDevice('C')
    opened.push(c)
    await c.call('sync.setup', { store, passphrase: 'correct horse battery', deviceName: 'C', scope: { apiKeys: true } })
    await converge([a, b, c])
    expect(await svc(c).secrets.readForRuntime('openai')).toBe('sk-from-a-0123456789abcdefXYZ')
    expect(contents(c)).toEqual(contents(a))
  })
})
