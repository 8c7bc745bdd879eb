import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import Database from 'better-sqlite3'
import { withMessageIndexDeferred } from '../../../src/core/store/message-index'
import { IMAGE_FORMAT, open, seal } from '../../../src/core/sync/crypto'
import { COMPACT_AFTER, COMPACT_SHARE } from '../../../src/core/sync/engine'
import { adoptImage, writeImage } from '../../../src/core/sync/image'
import { SyncStoreError } from '../../../src/core/sync/store'
import { contents, openDevice, text, withQuietDevice, type Device } from './devices'

// A snapshot carries its messages as a database image (src/core/sync/image.ts): a device that
// holds no messages adopts it whole; any other merges its records.

const opened: Device[] = []
afterEach(async () => {
  for (const d of opened.splice(0)) await d.close().catch(() => undefined)
})

const svc = (d: Device) => d.core.services()
const agentOf = (d: Device) => svc(d).chat.defaultAgent().id
const sql = (d: Device) => svc(d).store.db.sqlite

/** Device A with a history: three conversations, 600 messages (one in a topic), a deleted message, a reply still streaming. */
async function historyOnA(options: { compactBytes?: number } = {}) {
  const folder = mkdtempSync(join(tmpdir(), 'sb-sync-image-'))
  const store = { kind: 'folder' as const, path: folder }
  // Any segment bytes make A write a snapshot at the end of its round.
  const a = await openDevice('A', { compactBytes: options.compactBytes ?? 1, imageChunk: 64 * 1024 })
  opened.push(a)
  const convs = [0, 1, 2].map((i) => svc(a).store.conversations.create({ agentId: agentOf(a), title: `History ${i}` }))
  const topic = svc(a).store.conversations.createTopic(convs[0]!.id, 'A topic')
  svc(a).store.db.transaction(() => {
    for (let i = 0; i < 600; i++) svc(a).store.messages.create({ conversationId: convs[i % 3]!.id, role: i % 2 ? 'assistant' : 'user', content: text(`message ${i} about the weather `.repeat(3)) })
  })
  const inTopic = svc(a).store.messages.create({ conversationId: convs[0]!.id, role: 'user', content: text('a quokka 快速排序算法 in a topic'), topicId: topic.id })
  const doomed = svc(a).store.messages.create({ conversationId: convs[1]!.id, role: 'user', content: text('deleted before anyone saw it') })
  await a.setup(store)
  await a.sync()
  svc(a).store.messages.delete(doomed.id)
  await a.sync()
  // A reply still streaming is not in a segment yet, nor in the image.
  const streaming = svc(a).store.messages.beginStreaming({ conversationId: convs[2]!.id })
  await a.sync()
  return { a, store, folder, convs, topic, inTopic, doomed, streaming }
}

const imageChunks = (folder: string) => readdirSync(join(folder, 'snapshots')).filter((n) => /\.img\.\d{4}$/.test(n))
/** The chunks of the newest snapshot's image (the one a new device reads). */
const newestChunks = (folder: string) => {
  const snaps = readdirSync(join(folder, 'snapshots')).filter((n) => n.endsWith('.snap')).sort()
  const base = snaps[snaps.length - 1]!.replace(/\.snap$/, '')
  return imageChunks(folder).filter((n) => n.startsWith(`${base}.img.`)).sort()
}
const seqs = (d: Device) => sql(d).prepare('SELECT id, seq FROM messages ORDER BY id').all()
const messageMeta = (d: Device) => sql(d).prepare(`SELECT key, hlcs, hashes, deleted FROM sync_meta WHERE tbl = 'messages' ORDER BY key`).all()

describe('sync: a snapshot carries its messages as a database image', () => {
  it('a fresh device adopts the image whole: the same rows, stamps and search, and it syncs on from there', { timeout: 60_000 }, async () => {
    const { a, store, folder, convs, inTopic, doomed, streaming } = await historyOnA()
    expect(newestChunks(folder).length).toBeGreaterThan(1)
    // The store holds ciphertext only.
    for (const chunk of imageChunks(folder)) expect(readFileSync(join(folder, 'snapshots', chunk)).includes(Buffer.from('weather'))).toBe(false)
    // A snapshot with an image, and its chunks, carry format 2: a reader from before images refuses them by name rather than merging the snapshot without its messages.
    const formatOf = (path: string) => readFileSync(path)[6]
    const snap = readdirSync(join(folder, 'snapshots')).filter((n) => n.endsWith('.snap')).sort().pop()!
    expect([formatOf(join(folder, 'snapshots', snap)), formatOf(join(folder, 'snapshots', newestChunks(folder)[0]!))]).toEqual([2, 2])
    const segmentDir = join(folder, 'segments', svc(a).sync.status().deviceId)
    expect(formatOf(join(segmentDir, readdirSync(segmentDir)[0]!))).toBe(1)

    const c = await openDevice('C')
    opened.push(c)
    await c.setup(store)
    await c.sync()
    const onA = contents(a)
    // Everything A has sent, nothing it has not: the streaming reply stays out until it is complete.
    expect(contents(c).messages).toEqual(onA.messages.filter((m) => (m as { id: string }).id !== streaming.message.id))
    expect(svc(c).store.messages.get(doomed.id)).toBeUndefined()
    // Adopted whole, not merged row by row: the rows keep the insertion counter they had on A, and their stamps.
    expect(seqs(c)).toEqual(seqs(a).filter((r) => (r as { id: string }).id !== streaming.message.id))
    expect(messageMeta(c)).toEqual(messageMeta(a))
    expect(svc(c).store.messages.get(inTopic.id)?.topicId).toBe(inTopic.topicId)
    // Both full-text indexes came with it (contents() ran their integrity checks).
    expect(svc(c).store.search.search('quokka').map((h) => h.messageId)).toEqual([inTopic.id])
    expect(svc(c).store.search.search('排序').map((h) => h.messageId)).toEqual([inTopic.id])
    // Copied through a rollback journal for that one transaction; the database is back in WAL.
    expect(sql(c).pragma('journal_mode', { simple: true })).toBe('wal')

    // The table's triggers are back: what C writes is indexed and captured, and reaches A; A's later changes reach C.
    const later = svc(c).store.messages.create({ conversationId: convs[0]!.id, role: 'user', content: text('a wombat from C') })
    expect(svc(c).store.search.search('wombat').map((h) => h.messageId)).toEqual([later.id])
    const gone = svc(c).store.messages.list(convs[1]!.id)[0]!
    svc(c).store.messages.delete(gone.id)
    await c.sync()
    streaming.finish('complete')
    await a.sync()
    await c.sync()
    expect(svc(a).store.messages.get(later.id)?.id).toBe(later.id)
    expect(svc(a).store.messages.get(gone.id)).toBeUndefined()
    expect(svc(c).store.messages.get(streaming.message.id)?.status).not.toBe('streaming')
    expect(contents(c)).toEqual(contents(a))
  })

  it('100,000 messages reach a fresh device: the sender follows its first push with a snapshot image, the new device adopts it', { timeout: 240_000 }, async () => {
    const folder = mkdtempSync(join(tmpdir(), 'sb-sync-image-'))
    const store = { kind: 'folder' as const, path: folder }
    // The product's compaction thresholds, not a test's.
    const a = await openDevice('A', { compactAfter: COMPACT_AFTER, compactShare: COMPACT_SHARE })
    opened.push(a)
    const db = sql(a)
    const agent = agentOf(a)
    const insert = db.prepare(`INSERT INTO messages (id, conversation_id, agent_id, role, content, text, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'complete', ?, ?)`)
    const conversations = Array.from({ length: 100 }, (_, i) => svc(a).store.conversations.create({ agentId: agent, title: `Conversation ${i}` }).id)
    withMessageIndexDeferred(db, () => {
      for (let i = 0; i < 100_000; i++) {
        const body = `Message ${i}: ${'a typical sentence of a chat, neither short nor long. '.repeat(1 + (i % 6))}`
        insert.run(`m${i.toString(36).padStart(8, '0')}`, conversations[i % 100], agent, i % 2 ? 'assistant' : 'user', JSON.stringify(text(body)), body, 1_700_000_000_000 + i, 1_700_000_000_000 + i)
      }
    })
    const rare = svc(a).store.messages.create({ conversationId: conversations[7]!, role: 'user', content: text('a quokka 快速排序算法 once') })
    await a.setup(store)
    await a.sync()
    expect(newestChunks(folder).length).toBeGreaterThan(1)
    const c = await openDevice('C')
    opened.push(c)
    await c.setup(store)
    await c.sync()
    expect((sql(c).prepare('SELECT COUNT(*) AS n FROM messages').get() as { n: number }).n).toBe(100_001)
    expect(seqs(c)).toEqual(seqs(a))
    expect(contents(c)).toEqual(contents(a))
    expect(svc(c).store.search.search('排序').map((h) => h.messageId)).toEqual([rare.id])
    expect(svc(c).store.search.search('Message 98765').map((h) => h.messageId)).toHaveLength(1)
  })

  it('a long history is not written again every few messages: only once the segments after its snapshot come to a share of it, or to the most a new device reads', { timeout: 60_000 }, async () => {
    const folder = mkdtempSync(join(tmpdir(), 'sb-sync-image-'))
    const store = { kind: 'folder' as const, path: folder }
    // The product's thresholds, but for the most segments (80 rather than 256, to keep the test short).
    const a = await openDevice('A', { compactAfter: COMPACT_AFTER, compactShare: COMPACT_SHARE, compactMaxSegments: 80, snapshotBacklog: 1_000 })
    opened.push(a)
    const conv = svc(a).store.conversations.create({ agentId: agentOf(a), title: 'A long history' })
    svc(a).store.db.transaction(() => {
      for (let i = 0; i < 3_000; i++) svc(a).store.messages.create({ conversationId: conv.id, role: i % 2 ? 'assistant' : 'user', content: text(`message ${i}: ${'a sentence of an ordinary chat. '.repeat(4)}`) })
    })
    await a.setup(store)
    await a.sync()
    const snapshotsNow = () => readdirSync(join(folder, 'snapshots')).filter((n) => n.endsWith('.snap')).sort()
    const first = snapshotsNow()
    expect(first).toHaveLength(1)
    const size = readdirSync(join(folder, 'snapshots')).reduce((n, f) => n + readFileSync(join(folder, 'snapshots', f)).length, 0)
    // A person chatting: one short message a round, past the 64 segments that used to write it all again.
    for (let i = 0; i < 70; i++) {
      svc(a).store.messages.create({ conversationId: conv.id, role: 'user', content: text(`new message ${i}`) })
      await a.sync()
    }
    expect(snapshotsNow()).toEqual(first)
    // A segment that brings them to an eighth of the snapshot: the history is written again.
    svc(a).store.messages.create({ conversationId: conv.id, role: 'user', content: text('x'.repeat(Math.ceil(size / 8))) })
    await a.sync()
    const second = snapshotsNow()
    expect(second).toHaveLength(2)
    // Then short messages again, up to the most segments after a snapshot (80 here): written once more.
    for (let i = 0; i < 79; i++) {
      svc(a).store.messages.create({ conversationId: conv.id, role: 'user', content: text(`later message ${i}`) })
      await a.sync()
      expect(snapshotsNow()).toEqual(second)
    }
    svc(a).store.messages.create({ conversationId: conv.id, role: 'user', content: text('the 80th') })
    await a.sync()
    expect(snapshotsNow()).not.toEqual(second)
    // A new device starts from the newest and holds everything.
    const c = await openDevice('C')
    opened.push(c)
    await c.setup(store)
    await c.sync()
    expect(contents(c)).toEqual(contents(a))
  })

  it('adopting copies rows and index entries as they are and leaves the database whole: foreign keys on, every index, a topic not held left out; an image in the earlier shape adopts the same', { timeout: 60_000 }, async () => {
    const { a, convs, topic, inTopic, streaming } = await historyOnA()
    const dir = mkdtempSync(join(tmpdir(), 'sb-sync-image-shape-'))
    const current = join(dir, 'current.db')
    writeImage(svc(a).store.db, current)
    // The shape images had before this version: ids indexed by a separate index, no other index.
    const earlier = join(dir, 'earlier.db')
    writeFileSync(earlier, readFileSync(current))
    const old = new Database(earlier)
    const table = (old.prepare(`SELECT sql FROM sqlite_master WHERE name = 'messages'`).get() as { sql: string }).sql
    old.exec(`${table.replace(/^CREATE TABLE "?messages"?/, 'CREATE TABLE old_messages').replace('id TEXT NOT NULL UNIQUE', 'id TEXT NOT NULL')};
      INSERT INTO old_messages SELECT * FROM messages; DROP TABLE messages; ALTER TABLE old_messages RENAME TO messages;
      CREATE UNIQUE INDEX messages_id ON messages(id);`)
    expect(old.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'messages' ORDER BY name`).all()).toEqual([{ name: 'messages_id' }])
    old.close()

    const indexesOf = (d: Device) => sql(d).prepare(`SELECT name, sql FROM sqlite_master WHERE type IN ('index', 'trigger') AND tbl_name = 'messages' ORDER BY name`).all()
    const expected = sql(a).prepare('SELECT id, seq, topic_id FROM messages WHERE id != ? ORDER BY id').all(streaming.message.id) as Array<{ id: string; topic_id: string | null }>
    for (const image of [current, earlier]) {
      const d = await openDevice('D')
      opened.push(d)
      // What a snapshot's records bring first: the conversations (not the topic, as if deleted meanwhile).
      sql(d).prepare('ATTACH ? AS a').run(join(a.dataDir, 'switchboard.db'))
      sql(d).exec('INSERT INTO main.conversations SELECT * FROM a.conversations; DETACH a')
      expect(adoptImage(svc(d).store.db, image, '{}')).toBe(expected.length)
      expect(sql(d).pragma('foreign_keys', { simple: true })).toBe(1)
      expect(sql(d).pragma('journal_mode', { simple: true })).toBe('wal')
      expect(sql(d).pragma('integrity_check')).toEqual([{ integrity_check: 'ok' }])
      expect(sql(d).pragma('foreign_key_check')).toEqual([])
      expect(indexesOf(d)).toEqual(indexesOf(a))
      // The topic is not held here: its message keeps its place without it, as a merge leaves it.
      expect(sql(d).prepare('SELECT id, seq, topic_id FROM messages ORDER BY id').all()).toEqual(expected.map((m) => ({ ...m, topic_id: m.id === inTopic.id ? null : m.topic_id })))
      expect(topic.id).toBe(inTopic.topicId)
      expect(svc(d).store.search.search('quokka').map((h) => h.messageId)).toEqual([inTopic.id])
      // Enforced again: a conversation deleted takes its adopted messages with it.
      svc(d).store.conversations.delete(convs[1]!.id)
      expect((sql(d).prepare('SELECT COUNT(*) AS n FROM messages WHERE conversation_id = ?').get(convs[1]!.id) as { n: number }).n).toBe(0)
      expect(contents(d).messages.length).toBeGreaterThan(0)
    }
  })

  it('a fresh device says how far the history\'s download has come, chunk by chunk, and nothing once the round is over', { timeout: 60_000 }, async () => {
    const { store, folder } = await historyOnA()
    const chunks = newestChunks(folder).length
    expect(chunks).toBeGreaterThan(2)
    const c = await openDevice('C')
    opened.push(c)
    await c.setup(store)
    const seen: Array<{ done: number; total: number }> = []
    const off = svc(c).sync.onStatus((status) => {
      // Other news (the change count) comes with the same figure: each figure once.
      if (status.transfer && status.transfer.done !== seen.at(-1)?.done) seen.push({ ...status.transfer })
    })
    const after = await c.sync()
    off()
    // Said at the start and after each chunk, always forward, ending at the whole.
    expect(seen).toHaveLength(chunks + 1)
    expect(seen[0]!.done).toBe(0)
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.done).toBeGreaterThan(seen[i - 1]!.done)
    expect(seen.at(-1)!.done).toBe(seen[0]!.total)
    expect(after.transfer).toBeUndefined()
  })

  it('an image file left by a process killed while building or adopting one is swept when sync starts again', { timeout: 60_000 }, async () => {
    const { a } = await historyOnA()
    await a.close()
    const stale = join(a.dataDir, 'sync-image-0123456789ab.db')
    writeFileSync(stale, Buffer.alloc(4096, 1))
    const again = await a.reopen()
    opened.push(again)
    await expect.poll(() => readdirSync(again.dataDir).filter((n) => n.startsWith('sync-image-')), { timeout: 5_000 }).toEqual([])
    expect((await again.sync()).error).toBeUndefined()
  })

  it('a device that does not take conversations does not need the image: it merges the snapshot without it', { timeout: 60_000 }, async () => {
    const { a, store, folder } = await historyOnA()
    // Even with the image's chunks gone, the snapshot is all such a device needs.
    for (const chunk of newestChunks(folder)) rmSync(join(folder, 'snapshots', chunk))
    const e = await openDevice('E')
    opened.push(e)
    await e.call('sync.setup', { store, passphrase: 'correct horse battery', deviceName: 'E', scope: { conversations: false } })
    const status = await e.sync()
    expect(status.error).toBeUndefined()
    expect((sql(e).prepare('SELECT COUNT(*) AS n FROM messages').get() as { n: number }).n).toBe(0)
    expect(sql(e).prepare('SELECT seq FROM sync_seen WHERE device = ?').get(svc(a).sync.status().deviceId)).toEqual({ seq: expect.any(Number) })
  })

  it('a device that holds messages of its own merges the image record by record, and keeps and sends its own', { timeout: 60_000 }, async () => {
    const { a, store, folder } = await historyOnA()
    expect(imageChunks(folder).length).toBeGreaterThan(0)
    const b = await openDevice('B')
    opened.push(b)
    const mine = svc(b).store.conversations.create({ agentId: agentOf(b), title: 'Written on B before sync' })
    const own = svc(b).store.messages.create({ conversationId: mine.id, role: 'user', content: text('a platypus of my own') })
    await b.setup(store)
    await b.sync()
    await a.sync()
    await b.sync()
    expect(svc(a).store.messages.get(own.id)?.id).toBe(own.id)
    expect(contents(b).messages).toEqual(contents(a).messages.filter((m) => (m as { status: string }).status !== 'streaming'))
    expect(svc(b).store.search.search('platypus').map((h) => h.messageId)).toEqual([own.id])
  })

  it('a tampered image chunk is refused and named, and nothing of the image is merged; a half-written one waits for its writer', { timeout: 60_000 }, async () => {
    const { a, store, folder } = await historyOnA()
    const chunk = join(folder, 'snapshots', newestChunks(folder)[0]!)
    const good = readFileSync(chunk)

    const half = await openDevice('H')
    opened.push(half)
    writeFileSync(chunk, good.subarray(0, good.length - 100))
    await half.setup(store)
    const waiting = await half.sync()
    expect(waiting.error).toBeUndefined()
    expect(svc(half).store.messages.count(svc(a).store.conversations.list()[0]!.id)).toBe(0)
    writeFileSync(chunk, good)
    await half.sync()
    expect(contents(half).messages).toEqual(contents(a).messages.filter((m) => (m as { status: string }).status !== 'streaming'))

    const bad = Buffer.from(good)
    bad[bad.length - 40]! ^= 1
    writeFileSync(chunk, bad)
    const c = await openDevice('C')
    opened.push(c)
    await c.setup(store)
    const status = await c.sync()
    expect(status.error).toMatchObject({ code: 'SyncTampered', message: expect.stringContaining(newestChunks(folder)[0]!) })
    expect((sql(c).prepare('SELECT COUNT(*) AS n FROM messages').get() as { n: number }).n).toBe(0)
  })

  it('a chunk sealed under the right key and name by another write is refused: by the tags the snapshot lists, or, in a snapshot from before tags, by the hash of the whole', { timeout: 60_000 }, async () => {
    const { a, store, folder } = await historyOnA()
    const key = Buffer.from((await svc(a).secrets.readForRuntime(`sync:key:${svc(a).sync.status().deviceId}`))!, 'base64')
    const name = newestChunks(folder)[0]!
    const chunk = join(folder, 'snapshots', name)
    const good = readFileSync(chunk)
    const opened0 = open(key, `snapshots/${name}`, good)
    // Another write's bytes under the same name: it opens, its header is right, it is not the chunk the snapshot was written with.
    const other = Buffer.from(opened0.plaintext)
    other[other.length - 1]! ^= 1
    writeFileSync(chunk, seal(key, opened0.header, other, IMAGE_FORMAT))
    const refuse = async (label: string) => {
      const d = await openDevice(label)
      opened.push(d)
      await d.setup(store)
      const status = await d.sync()
      expect(status.error).toMatchObject({ code: 'SyncTampered' })
      expect((sql(d).prepare('SELECT COUNT(*) AS n FROM messages').get() as { n: number }).n).toBe(0)
      return status
    }
    expect((await refuse('T')).error?.message).toContain(name)

    // The snapshot as a writer before tags sealed it: the whole file's hash catches the chunk instead.
    const snapName = readdirSync(join(folder, 'snapshots')).filter((n) => n.endsWith('.snap')).sort().pop()!
    const snapPath = join(folder, 'snapshots', snapName)
    const snap = open(key, `snapshots/${snapName}`, readFileSync(snapPath))
    const body = JSON.parse(snap.plaintext.toString('utf8')) as { image: { tags?: string[] } }
    expect(body.image.tags).toHaveLength(newestChunks(folder).length)
    delete body.image.tags
    writeFileSync(snapPath, seal(key, snap.header, Buffer.from(JSON.stringify(body)), IMAGE_FORMAT))
    expect((await refuse('U')).error?.message).toContain(snapName)
    // With its own chunk back, a device adopts that snapshot's image.
    writeFileSync(chunk, good)
    const v = await openDevice('V')
    opened.push(v)
    await v.setup(store)
    expect((await v.sync()).error).toBeUndefined()
    expect(contents(v).messages).toEqual(contents(a).messages.filter((m) => (m as { status: string }).status !== 'streaming'))
  })

  it('the store filling up while an image is uploaded: the round says so and nothing is lost; with space again the snapshot is written and the failed attempt\'s chunks are removed', { timeout: 60_000 }, async () => {
    const folder = mkdtempSync(join(tmpdir(), 'sb-sync-image-full-'))
    const store = { kind: 'folder' as const, path: folder }
    const a = await openDevice('A', { compactBytes: 1, imageChunk: 64 * 1024 })
    opened.push(a)
    const conv = svc(a).store.conversations.create({ agentId: agentOf(a), title: 'Filling up' })
    svc(a).store.db.transaction(() => {
      for (let i = 0; i < 400; i++) svc(a).store.messages.create({ conversationId: conv.id, role: i % 2 ? 'assistant' : 'user', content: text(`message ${i} about the tide `.repeat(4)) })
    })
    await a.setup(store)
    // The third chunk of the first image does not fit.
    a.fault.putFails = (key) => (/\.img\.0002$/.test(key) ? new SyncStoreError('SyncStoreFull', 'ENOSPC: no space left on device') : undefined)
    const full = await a.sync()
    expect(full).toMatchObject({ state: 'error', error: { code: 'SyncStoreFull' } })
    const snapshots = () => readdirSync(join(folder, 'snapshots')).sort()
    expect(snapshots().filter((n) => n.endsWith('.snap'))).toEqual([])
    expect(imageChunks(folder)).toHaveLength(2)

    // Nothing was lost: the segments are there, and a fresh device gets every message from them.
    const c = await openDevice('C')
    opened.push(c)
    await c.setup(store)
    expect((await c.sync()).error).toBeUndefined()
    expect(contents(c).messages).toEqual(contents(a).messages)

    a.fault.putFails = undefined
    expect((await a.sync()).error).toBeUndefined()
    // One snapshot, and only its own chunks: none of the attempt that failed is left behind.
    const snaps = snapshots().filter((n) => n.endsWith('.snap'))
    expect(snaps).toHaveLength(1)
    expect(imageChunks(folder).length).toBeGreaterThan(2)
    for (const chunk of imageChunks(folder)) expect(chunk.startsWith(snaps[0]!.replace(/\.snap$/, '.img.'))).toBe(true)
    const d = await openDevice('D')
    opened.push(d)
    await d.setup(store)
    expect((await d.sync()).error).toBeUndefined()
    expect(seqs(d)).toEqual(seqs(a))
  })

  it('this device\'s own disk filling up while it adopts an image: the error names this disk and the fix, nothing is half adopted, and the next round completes', { timeout: 60_000 }, async () => {
    const { a, store } = await historyOnA()
    const c = await openDevice('C')
    opened.push(c)
    const triggers = () => sql(c).prepare(`SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'messages' ORDER BY name`).all()
    const before = triggers()
    await c.setup(store)
    // Room for the snapshot's records (a few conversations), not for its image.
    const pages = sql(c).pragma('page_count', { simple: true }) as number
    sql(c).pragma(`max_page_count = ${pages + 40}`)
    const full = await c.sync()
    expect(full).toMatchObject({ state: 'error', error: { code: 'DiskFull', message: expect.stringContaining(c.dataDir), fix: expect.stringMatching(/free/i) } })
    // It failed in the image: the conversations are in, no message is.
    expect(svc(c).store.conversations.list()).toHaveLength(3)
    expect((sql(c).prepare('SELECT COUNT(*) AS n FROM messages').get() as { n: number }).n).toBe(0)
    expect(sql(c).pragma('foreign_keys', { simple: true })).toBe(1)
    expect(sql(c).pragma('journal_mode', { simple: true })).toBe('wal')
    expect(triggers()).toEqual(before)
    expect(readdirSync(c.dataDir).filter((n) => n.startsWith('sync-image-'))).toEqual([])

    sql(c).pragma('max_page_count = 1073741823')
    expect((await c.sync()).error).toBeUndefined()
    expect(contents(c).messages).toEqual(contents(a).messages.filter((m) => (m as { status: string }).status !== 'streaming'))
  })

  it('old segments of a device that stopped syncing do not make every round write a snapshot', { timeout: 60_000 }, async () => {
    const folder = mkdtempSync(join(tmpdir(), 'sb-sync-image-'))
    const store = { kind: 'folder' as const, path: folder }
    const { a } = await withQuietDevice(store, opened)
    const snapshots = () => readdirSync(join(folder, 'snapshots')).filter((n) => n.endsWith('.snap')).length
    expect(snapshots()).toBe(1)
    for (let i = 0; i < 2; i++) {
      svc(a).store.conversations.create({ agentId: agentOf(a), title: `from A ${i}` })
      await a.sync()
    }
    // Two segments after the snapshot: below the three that make a new one.
    expect(snapshots()).toBe(1)
    svc(a).store.conversations.create({ agentId: agentOf(a), title: 'from A, the third' })
    await a.sync()
    // New segments still bring a new snapshot.
    expect(snapshots()).toBe(2)
  })

  it('a device behind a compacted gap that the newest snapshot does not cover reads the snapshot of the device that compacted', { timeout: 60_000 }, async () => {
    const folder = mkdtempSync(join(tmpdir(), 'sb-sync-image-'))
    const store = { kind: 'folder' as const, path: folder }
    // Z's clock runs an hour ahead: its snapshot, written first, sorts as the newest.
    const z = await openDevice('Z', { skewMs: 3_600_000, compactAfter: 1 })
    const x = await openDevice('X', { compactAfter: 3 })
    opened.push(z, x)
    await x.setup(store)
    svc(x).store.conversations.create({ agentId: agentOf(x), title: 'x0' })
    await x.sync()
    await z.setup(store)
    await z.sync()
    const snapshots = () => readdirSync(join(folder, 'snapshots')).filter((n) => n.endsWith('.snap')).sort()
    expect(snapshots().pop()).toMatch(new RegExp(`-${svc(z).sync.status().deviceId}\\.snap$`))
    // X goes on alone and compacts: its segments before its own snapshot are deleted.
    for (let i = 1; i <= 4; i++) {
      svc(x).store.conversations.create({ agentId: agentOf(x), title: `x${i}` })
      await x.sync()
    }
    const xSegments = readdirSync(join(folder, 'segments', svc(x).sync.status().deviceId)).sort()
    expect(Number(xSegments[0]!.slice(0, 12))).toBeGreaterThan(2)
    expect(snapshots().pop()).toMatch(new RegExp(`-${svc(z).sync.status().deviceId}\\.snap$`))

    const c = await openDevice('C')
    opened.push(c)
    await c.setup(store)
    await c.sync()
    const titles = (d: Device) => svc(d).store.conversations.list().map((conv) => conv.title).filter((t) => /^x\d$/.test(t)).sort()
    expect(titles(c)).toEqual(['x0', 'x1', 'x2', 'x3', 'x4'])
  })
})
