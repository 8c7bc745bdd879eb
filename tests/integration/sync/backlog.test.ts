import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { SyncStoreError } from '../../../src/core/sync/store'
import { contents, openDevice, text, type Device } from './devices'

// A long backlog (a first push of a history, a large import) goes out once, as a snapshot, not
// as segments that a compaction then writes again as a snapshot (engine.ts, decision 88).

const opened: Device[] = []
afterEach(async () => {
  for (const d of opened.splice(0)) await d.close().catch(() => undefined)
})

const svc = (d: Device) => d.core.services()
const agentOf = (d: Device) => svc(d).chat.defaultAgent().id
/** This device's objects under `segments/`, with their sizes. */
const segmentsOf = (folder: string, d: Device) => {
  const dir = join(folder, 'segments', svc(d).sync.status().deviceId!)
  return readdirSync(dir).map((name) => ({ name, size: statSync(join(dir, name)).size }))
}
const snapshotsOf = (folder: string, d: Device) => readdirSync(join(folder, 'snapshots')).filter((n) => n.endsWith(`-${svc(d).sync.status().deviceId}.snap`))

/** Device A with a history of 3 conversations and 600 messages (one with an attachment), and B already syncing with its own. */
async function setting(options: { backlog: number }) {
  const folder = mkdtempSync(join(tmpdir(), 'sb-sync-backlog-'))
  const store = { kind: 'folder' as const, path: folder }
  const b = await openDevice('B')
  opened.push(b)
  const own = svc(b).store.conversations.create({ agentId: agentOf(b), title: 'B was here first' })
  svc(b).store.messages.create({ conversationId: own.id, role: 'user', content: text('a numbat of my own') })
  await b.setup(store)
  await b.sync()

  const a = await openDevice('A', { snapshotBacklog: options.backlog, imageChunk: 64 * 1024 })
  opened.push(a)
  const convs = [0, 1, 2].map((i) => svc(a).store.conversations.create({ agentId: agentOf(a), title: `History ${i}` }))
  svc(a).store.db.transaction(() => {
    for (let i = 0; i < 600; i++) svc(a).store.messages.create({ conversationId: convs[i % 3]!.id, role: i % 2 ? 'assistant' : 'user', content: text(`message ${i} about a quokka `.repeat(4)) })
  })
  const photo = Buffer.concat([Buffer.from('\x89PNG\r\n\x1a\n', 'binary'), Buffer.alloc(2048, 9)])
  const { file } = await svc(a).attachments.upload({ name: 'photo.png', mimeType: 'image/png', bytes: photo })
  svc(a).store.messages.create({ conversationId: convs[0]!.id, role: 'user', content: [{ type: 'text', text: 'look at this' }, { type: 'file', fileId: file.id }] as never })
  return { folder, store, a, b, convs, file, photo }
}

describe('sync: a long backlog goes out as a snapshot', () => {
  it('sent once: no segment carries it, and a device already syncing, a fresh device and the sender all converge; later changes flow as segments', { timeout: 60_000 }, async () => {
    const { folder, store, a, b, convs, file, photo } = await setting({ backlog: 500 })
    await a.setup(store)
    const status = await a.sync()
    expect(status.error).toBeUndefined()
    expect(status.pendingChanges).toBe(0)
    // One snapshot with its image, and under segments only the empty one that says where it ends.
    expect(snapshotsOf(folder, a)).toHaveLength(1)
    const segments = segmentsOf(folder, a)
    expect(segments).toHaveLength(1)
    expect(segments[0]!.size).toBeLessThan(512)
    expect(Number(segments[0]!.name.replace('.seg', ''))).toBeGreaterThan(1)

    // B, which reads segments, finds itself behind and reads the snapshot: A's history and B's own, on both.
    await b.sync()
    await a.sync()
    expect(contents(b)).toEqual(contents(a))
    expect(svc(a).store.conversations.list().map((c) => c.title)).toContain('B was here first')
    expect(readFileSync(join(b.dataDir, file.path)).equals(photo)).toBe(true)
    // A device new to the store starts from the same snapshot.
    const c = await openDevice('C')
    opened.push(c)
    await c.setup(store)
    await c.sync()
    expect(contents(c)).toEqual(contents(a))

    // From here on A writes segments again, numbered on from the snapshot's.
    const later = svc(a).store.messages.create({ conversationId: convs[1]!.id, role: 'user', content: text('written after the snapshot') })
    await a.sync()
    expect(segmentsOf(folder, a)).toHaveLength(2)
    for (const d of [b, c]) await d.sync()
    for (const d of [b, c]) expect(svc(d).store.messages.get(later.id)?.id).toBe(later.id)
    expect(contents(b)).toEqual(contents(a))
  })

  it('stopped half way (the snapshot could not be written), the changes stay waiting; the next round writes it even when no longer long, and nothing waits at a gap', { timeout: 60_000 }, async () => {
    const { folder, store, a, b } = await setting({ backlog: 500 })
    await a.setup(store)
    a.fault.putFails = (key) => (key.endsWith('.snap') ? new SyncStoreError('SyncStoreUnreachable', 'the link dropped') : undefined)
    const failed = await a.sync()
    expect(failed.error).toBeDefined()
    expect(failed.pendingChanges).toBeGreaterThan(600)
    a.fault.putFails = undefined
    // Opened again where a backlog of this length would go out as segments: the snapshot it
    // reserved a number for is still owed, or every segment after it would wait at a gap.
    await a.close()
    const again = await openDevice('A', { dataDir: a.dataDir, keychain: a.keychain, imageChunk: 64 * 1024 })
    opened.push(again)
    const status = await again.sync()
    expect(status.error).toBeUndefined()
    expect(status.pendingChanges).toBe(0)
    await b.sync()
    await again.sync()
    expect(contents(b)).toEqual(contents(again))
    expect(svc(b).store.messages.count(svc(again).store.conversations.list().find((c) => c.title === 'History 0')!.id)).toBeGreaterThan(200)
    expect(snapshotsOf(folder, again).length).toBeGreaterThan(0)
  })

  it('a long import after segments were sent: the older segments go, so a device that read them sees it is behind and reads the snapshot', { timeout: 60_000 }, async () => {
    const folder = mkdtempSync(join(tmpdir(), 'sb-sync-backlog-'))
    const store = { kind: 'folder' as const, path: folder }
    const [a, b] = [await openDevice('A', { snapshotBacklog: 500, imageChunk: 64 * 1024 }), await openDevice('B')]
    opened.push(a, b)
    for (const d of [a, b]) await d.setup(store)
    const first = svc(a).store.conversations.create({ agentId: agentOf(a), title: 'before the import' })
    for (let i = 0; i < 3; i++) {
      svc(a).store.messages.create({ conversationId: first.id, role: 'user', content: text(`early ${i}`) })
      await a.sync()
    }
    await b.sync()
    expect(segmentsOf(folder, a).length).toBeGreaterThan(0)
    const imported = svc(a).store.conversations.create({ agentId: agentOf(a), title: 'imported' })
    svc(a).store.db.transaction(() => {
      for (let i = 0; i < 700; i++) svc(a).store.messages.create({ conversationId: imported.id, role: 'user', content: text(`imported ${i}`) })
    })
    await a.sync()
    expect(segmentsOf(folder, a)).toHaveLength(1)
    await b.sync()
    expect(svc(b).store.messages.count(imported.id)).toBe(700)
    expect(contents(b)).toEqual(contents(a))
  })
})

