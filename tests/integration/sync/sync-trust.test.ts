/**
 * Two devices that must never silently differ, through each of the four stores (a folder,
 * s3rver, `rclone serve webdav`, a fresh PostgreSQL cluster): a file travels byte for byte, a
 * reply to a message deleted elsewhere at the same time is shown on both, an object the store lost
 * is written again by the device that wrote it, and a gap in one device's segments neither hides
 * what follows it nor goes unsaid.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join as joinPath } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { SyncStatus } from '../../../src/shared/bridge/procedures/sync'
import { openSyncStore } from '../../../src/core/sync/stores'
import type { SyncStore } from '../../../src/core/sync/store'
import { useStorePlaces } from './store-places'
import { contents, converge, openDevice, text, type Device } from './devices'

const all = useStorePlaces('trust')
/** A new, empty store of each kind, and the secret it takes. */
const places = all

const opened: Device[] = []
const raws: SyncStore[] = []
afterEach(async () => {
  for (const d of opened.splice(0)) await d.close().catch(() => undefined)
  for (const r of raws.splice(0)) await r.close().catch(() => undefined)
})

const svc = (d: Device) => d.core.services()
const agentOf = (d: Device) => svc(d).chat.defaultAgent().id

/** Every message of a conversation hangs off its first message through messages that are there: the conversation view reaches it. */
function unreachable(d: Device, conversationId: string): string[] {
  const messages = svc(d).store.messages.list(conversationId)
  const ids = new Set(messages.map((m) => m.id))
  return messages.filter((m) => m.parentId !== undefined && !ids.has(m.parentId)).map((m) => m.id)
}

/** Devices joined to a new place in the store, and the store itself as another program sees it. */
async function join(kind: keyof typeof places, names: string[]) {
  const { config, secret } = await places[kind]()
  const devices: Device[] = []
  for (const name of names) {
    const d = await openDevice(name)
    opened.push(d)
    await d.call('sync.setup', { store: config, ...(secret ? { secret } : {}), passphrase: 'correct horse battery', deviceName: name })
    devices.push(d)
  }
  const raw = await openSyncStore(config, secret)
  raws.push(raw)
  const add = async (name: string) => {
    const d = await openDevice(name)
    opened.push(d)
    await d.call('sync.setup', { store: config, ...(secret ? { secret } : {}), passphrase: 'correct horse battery', deviceName: name })
    return d
  }
  return { devices, raw, add }
}

for (const kind of Object.keys(places) as Array<keyof typeof places>) {
  describe(`through ${kind}`, () => {
    it('a text file with Windows line endings is kept and synced byte for byte', { timeout: 60_000 }, async () => {
      const { devices } = await join(kind, ['A', 'B'])
      const [a, b] = devices as [Device, Device]
      const bytes = Buffer.from('Minutes\r\n\r\n1. Budget approved\r\n2. Ship it\r\n', 'utf8')
      const { file } = await svc(a).attachments.upload({ name: 'minutes.txt', mimeType: 'text/plain', bytes })
      expect(readFileSync(joinPath(a.dataDir, file.path)).equals(bytes)).toBe(true)
      await converge([a, b])
      const after = (await b.call('sync.status', {})) as SyncStatus
      expect(after.error).toBeUndefined()
      expect(readFileSync(joinPath(b.dataDir, file.path)).equals(bytes)).toBe(true)
      // What the model is given is the text, on both.
      expect(svc(b).attachments.context([file.id])).toEqual([expect.objectContaining({ text: expect.stringContaining('Budget approved') })])
    })

    it('a reply to a message another device deleted at the same time is shown on both, under the nearest message kept', { timeout: 60_000 }, async () => {
      const { devices } = await join(kind, ['A', 'B'])
      const [a, b] = devices as [Device, Device]
      const conv = svc(a).store.conversations.create({ agentId: agentOf(a), title: 'Plans' })
      const first = svc(a).store.messages.create({ conversationId: conv.id, role: 'user', content: text('where to?') })
      const doomed = svc(a).store.messages.create({ conversationId: conv.id, role: 'assistant', parentId: first.id, content: text('Lisbon or Porto') })
      const next = svc(a).store.messages.create({ conversationId: conv.id, role: 'user', parentId: doomed.id, content: text('Porto then') })
      await converge([a, b])
      // At the same time: A deletes the answer, B replies to it.
      svc(a).chat.deleteMessage(doomed.id)
      const reply = svc(b).store.messages.create({ conversationId: conv.id, role: 'user', parentId: doomed.id, content: text('what about Faro?') })
      await a.sync()
      await b.sync()
      await converge([a, b])

      expect(contents(a)).toEqual(contents(b))
      for (const d of [a, b]) {
        expect(svc(d).store.messages.get(doomed.id)).toBeUndefined()
        expect(svc(d).store.messages.get(reply.id)?.parentId).toBe(first.id)
        expect(unreachable(d, conv.id)).toEqual([])
        // Two branches under the first message: the reply and what followed the deleted answer.
        expect(svc(d).store.messages.get(next.id)?.parentId).toBe(first.id)
      }
    })

    it('a segment refused and then deleted from the store: its writer sends its content again, and the devices agree', { timeout: 90_000 }, async () => {
      // B joins after the damage: a device already set up may have merged the segment in a round
      // of its own (PostgreSQL wakes it at each of A's writes) before it is damaged.
      const { devices, raw, add } = await join(kind, ['A'])
      const [a] = devices as [Device]
      for (let i = 1; i <= 8; i++) {
        svc(a).store.conversations.create({ agentId: agentOf(a), title: `conversation ${i}` })
        await a.sync()
      }
      const { deviceId } = (await a.call('sync.status', {})) as SyncStatus
      const keys = (await raw.list(`segments/${deviceId}/`)).map((o) => o.key)
      const damaged = keys[keys.length - 4]!
      const bytes = Buffer.from((await raw.get(damaged))!)
      bytes[bytes.length - 20] = bytes[bytes.length - 20]! ^ 0xff
      await raw.put(damaged, bytes)
      const b = await add('B')
      expect(((await b.sync()) as SyncStatus).error?.message).toContain(damaged)
      // The fix the status gives: delete it there.
      await raw.delete(damaged)
      await converge([a, b])
      expect(svc(b).store.conversations.list().length).toBe(svc(a).store.conversations.list().length)
      expect(contents(b)).toEqual(contents(a))
      expect(((await b.call('sync.status', {})) as SyncStatus).error).toBeUndefined()
    })

    it('a device set up after a segment was lost gets what follows it at once, names the gap, and gets the rest once the writer sends it again', { timeout: 90_000 }, async () => {
      const { devices, raw, add } = await join(kind, ['A'])
      const [a] = devices as [Device]
      for (let i = 1; i <= 8; i++) {
        svc(a).store.conversations.create({ agentId: agentOf(a), title: `conversation ${i}` })
        await a.sync()
      }
      const { deviceId } = (await a.call('sync.status', {})) as SyncStatus
      const keys = (await raw.list(`segments/${deviceId}/`)).map((o) => o.key)
      const lost = keys[keys.length - 4]!
      await raw.delete(lost)
      const c = await add('C')
      const said = (await c.sync()) as SyncStatus
      // Written after the loss: here already.
      expect(svc(c).store.conversations.list().some((conv) => conv.title === 'conversation 8')).toBe(true)
      expect(said.error).toMatchObject({ code: 'SyncMissing', message: expect.stringContaining(lost) })
      expect(said.error?.message).toContain('from A since')
      expect(said.missing).toEqual([expect.objectContaining({ key: lost, device: deviceId, deviceName: 'A', since: expect.any(Number) })])
      await converge([a, c])
      expect(contents(c)).toEqual(contents(a))
      const after = (await c.call('sync.status', {})) as SyncStatus
      expect(after.error).toBeUndefined()
      expect(after.missing).toBeUndefined()
    })

    it('an attachment whose blob the store lost: the other device names it, the writer sends it again, and the file arrives', { timeout: 90_000 }, async () => {
      // B joins after the loss, so no round of its own fetched the blob before (see above).
      const { devices, raw, add } = await join(kind, ['A'])
      const [a] = devices as [Device]
      const bytes = Buffer.from('lost and found\r\n', 'utf8')
      const { file } = await svc(a).attachments.upload({ name: 'lost.txt', mimeType: 'text/plain', bytes })
      await a.sync()
      // Gone from the store before B fetched it.
      const blobs = (await raw.list('blobs/')).map((o) => o.key)
      expect(blobs.length).toBeGreaterThan(0)
      for (const key of blobs) await raw.delete(key)
      const b = await add('B')
      const said = (await b.sync()) as SyncStatus
      expect(existsSync(joinPath(b.dataDir, file.path))).toBe(false)
      expect(said.error).toMatchObject({ code: 'SyncMissing', message: expect.stringMatching(/Missing from the store: blobs\/\S+ from A since/) })
      await converge([a, b])
      expect(readFileSync(joinPath(b.dataDir, file.path)).equals(bytes)).toBe(true)
      expect(((await b.call('sync.status', {})) as SyncStatus).error).toBeUndefined()
      expect(((await a.call('sync.status', {})) as SyncStatus).error).toBeUndefined()
    })

    it('an attachment whose blob was damaged in the store: refused and named, written again by the device that has it, then the file arrives', { timeout: 90_000 }, async () => {
      // B joins after the loss, so no round of its own fetched the blob before (see above).
      const { devices, raw, add } = await join(kind, ['A'])
      const [a] = devices as [Device]
      const bytes = Buffer.from('%PDF-ish body that must arrive whole', 'utf8')
      const { file } = await svc(a).attachments.upload({ name: 'report.txt', mimeType: 'text/plain', bytes })
      await a.sync()
      for (const key of (await raw.list('blobs/')).map((o) => o.key)) {
        const damaged = Buffer.from((await raw.get(key))!)
        damaged[damaged.length - 5] = damaged[damaged.length - 5]! ^ 0xff
        await raw.put(key, damaged)
      }
      const b = await add('B')
      const said = (await b.sync()) as SyncStatus
      expect(said.error).toMatchObject({ code: 'SyncTampered', message: expect.stringContaining('blobs/') })
      expect(existsSync(joinPath(b.dataDir, file.path))).toBe(false)
      await converge([a, b])
      expect(readFileSync(joinPath(b.dataDir, file.path)).equals(bytes)).toBe(true)
      expect(((await b.call('sync.status', {})) as SyncStatus).error).toBeUndefined()
    })
  })
}
