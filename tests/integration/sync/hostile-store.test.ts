/**
 * The store as an attacker sees it: whoever can write to the bucket, the WebDAV folder, the
 * table or the shared folder, but holds no passphrase. End-to-end encryption keeps them from
 * reading or forging anything; these tests hold that they cannot make a device lose what another
 * device sent, or take the app down, either.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { contents, converge, newFolderStore, openDevice, text, withQuietDevice, type Device } from './devices'

const opened: Device[] = []
afterEach(async () => {
  for (const d of opened.splice(0)) await d.close().catch(() => undefined)
})

async function pair() {
  const store = newFolderStore()
  const a = await openDevice('A')
  const b = await openDevice('B')
  opened.push(a, b)
  await a.setup(store)
  await b.setup(store)
  await converge([a, b])
  return { a, b, folder: store.path }
}

const svc = (d: Device) => d.core.services()
const newConversation = (d: Device, title: string) => svc(d).store.conversations.create({ agentId: svc(d).chat.defaultAgent().id, title })
const GiB = 1024 ** 3
/** What someone without the key might put in the store: long enough to have a header, a tag and a body, and none of them. */
const GARBAGE = 'not a Switchboard object, but long enough to have a header and a tag and some body'

describe('a store written to by someone without the passphrase', () => {
  it('objects far larger than sync writes are refused by name without being read; what the real devices sent still merges', async () => {
    const { a, b, folder } = await pair()
    const sent = newConversation(a, 'sent beside the planted files')
    await a.sync()
    // Sparse: 8 GiB each on paper, nothing on the disk. Read whole, each would take 8 GiB of memory.
    const planted = ['segments/outsider/1.seg', 'devices/outsider.json', 'forgotten/outsider.json']
    for (const key of planted) {
      mkdirSync(join(folder, key, '..'), { recursive: true })
      writeFileSync(join(folder, key), '')
      truncateSync(join(folder, key), 8 * GiB)
    }
    const rss = process.memoryUsage().rss
    const status = await b.sync()
    expect(process.memoryUsage().rss - rss).toBeLessThan(GiB)
    expect(status.state).not.toBe('offline')
    expect(status.error).toMatchObject({ code: 'SyncTampered', message: expect.stringContaining('segments/outsider/1.seg') })
    expect(svc(b).store.conversations.get(sent.id)?.title).toBe('sent beside the planted files')
    // The next change still flows both ways.
    const reply = newConversation(b, 'and back')
    await converge([a, b])
    expect(svc(a).store.conversations.get(reply.id)?.title).toBe('and back')
    expect(contents(a)).toEqual(contents(b))
  })

  it('a refused object is named until it is deleted from the store, then the status is clear again', async () => {
    const { b, folder } = await pair()
    mkdirSync(join(folder, 'segments', 'outsider'))
    const planted = join(folder, 'segments', 'outsider', '000000000001.seg')
    writeFileSync(planted, GARBAGE)
    expect((await b.sync()).error).toMatchObject({ code: 'SyncTampered' })
    expect((await b.sync()).error).toMatchObject({ code: 'SyncTampered' })
    rmSync(planted)
    expect((await b.sync()).error).toBeUndefined()
  })

  it('garbage planted under the number a device writes next: that device writes past it, and the others get what it sent', async () => {
    const { a, b, folder } = await pair()
    const { deviceId } = await a.sync()
    // The name A writes next, as A names its segments.
    const newest = readdirSync(join(folder, 'segments', deviceId)).sort().pop()!
    const next = `${String(Number(newest.replace('.seg', '')) + 1).padStart(newest.length - 4, '0')}.seg`
    writeFileSync(join(folder, 'segments', deviceId, next), GARBAGE)
    // B reads it first: refused and named.
    expect((await b.sync()).error).toMatchObject({ code: 'SyncTampered', message: expect.stringContaining(`segments/${deviceId}/${next}`) })
    const made = newConversation(a, 'written after the planted file')
    await a.sync()
    await b.sync()
    expect(svc(b).store.conversations.get(made.id)?.title).toBe('written after the planted file')
    expect(contents(a)).toEqual(contents(b))
  })
})

describe('many objects planted', () => {
  it('the status names the first few and counts the rest', async () => {
    const { b, folder } = await pair()
    mkdirSync(join(folder, 'segments', 'outsider'))
    for (let i = 1; i <= 500; i++) writeFileSync(join(folder, 'segments', 'outsider', `${String(i).padStart(12, '0')}.seg`), GARBAGE)
    const { error } = await b.sync()
    expect(error?.code).toBe('SyncTampered')
    expect(error?.message).toContain('segments/outsider/000000000001.seg')
    expect(error?.message).toMatch(/and 495 more/)
    expect(error!.message.length).toBeLessThan(400)
  })
})

describe('an attachment overwritten by someone without the passphrase', () => {
  it('is refused by name; the message and everything after it still arrive, and sync is not held at it', async () => {
    const { a, b, folder } = await pair()
    const bytes = Buffer.concat([Buffer.from('\x89PNG\r\n\x1a\n', 'binary'), Buffer.alloc(2048, 7)])
    const { file } = await svc(a).attachments.upload({ name: 'photo.png', mimeType: 'image/png', bytes })
    const conv = newConversation(a, 'with a photo')
    await a.sync()
    const [blob] = readdirSync(join(folder, 'blobs'))
    writeFileSync(join(folder, 'blobs', blob!), GARBAGE)
    const status = await b.sync()
    expect(status.error).toMatchObject({ code: 'SyncTampered', message: expect.stringContaining(`blobs/${blob}`) })
    expect(svc(b).store.conversations.get(conv.id)?.title).toBe('with a photo')
    expect(svc(b).store.files.findBySha256(file.sha256)?.id).toBe(file.id)
    const later = newConversation(a, 'after the photo')
    await a.sync()
    await b.sync()
    expect(svc(b).store.conversations.get(later.id)?.title).toBe('after the photo')
  })
})

describe('a snapshot planted by someone without the passphrase, named to sort last', () => {
  it('is refused by name and does not stand for the newest: no device writes a snapshot every round, and a new device still starts', async () => {
    const store = newFolderStore()
    const { a } = await withQuietDevice(store, opened)
    const planted = 'snapshots/9999999999999-outsider.snap'
    writeFileSync(join(store.path, ...planted.split('/')), GARBAGE)
    let written = 0
    a.fault.putFails = (key) => void (key.endsWith('.snap') && written++)
    for (let i = 0; i < 3; i++) {
      newConversation(a, `from A ${i}`)
      expect((await a.sync()).error).toMatchObject({ code: 'SyncTampered', message: expect.stringContaining(planted) })
    }
    // Three segments after A's own snapshot: one more snapshot, not one a round.
    expect(written).toBeLessThanOrEqual(1)
    const c = await openDevice('C')
    opened.push(c)
    await c.setup(store)
    await c.sync()
    expect(contents(c)).toEqual(contents(a))
  })
})

describe('a segment planted under a device no one has, numbered as if after a gap', () => {
  it('does not make a device read the newest snapshot again every round', { timeout: 60_000 }, async () => {
    const store = newFolderStore()
    const a = await openDevice('A', { compactBytes: 1, imageChunk: 64 * 1024 })
    const b = await openDevice('B')
    opened.push(a, b)
    await a.setup(store)
    const conv = newConversation(a, 'history')
    for (let i = 0; i < 50; i++) svc(a).store.messages.create({ conversationId: conv.id, role: 'user', content: text(`message ${i}`) })
    await a.sync()
    await b.setup(store)
    await b.sync()
    expect(svc(b).store.messages.count(conv.id)).toBe(50)
    mkdirSync(join(store.path, 'segments', 'outsider'))
    writeFileSync(join(store.path, 'segments', 'outsider', '000000000005.seg'), GARBAGE)
    b.fault.gets = []
    for (let i = 0; i < 3; i++) await b.sync()
    expect(b.fault.gets.filter((key) => key.startsWith('snapshots/'))).toEqual([])
    // What A sends still arrives.
    const later = newConversation(a, 'later')
    await a.sync()
    await b.sync()
    expect(svc(b).store.conversations.get(later.id)?.title).toBe('later')
  })
})

/** The snapshots in a folder store, oldest first. */
const snapshotsIn = (store: { path: string }) => readdirSync(join(store.path, 'snapshots')).filter((n) => n.endsWith('.snap')).sort()

/** Flips one byte in the first image chunk of a snapshot in a folder store. */
function damageImage(store: { path: string }, snapshot: string): void {
  const chunk = join(store.path, 'snapshots', `${snapshot.replace(/\.snap$/, '')}.img.0000`)
  const bytes = readFileSync(chunk)
  bytes[bytes.length - 40]! ^= 1
  writeFileSync(chunk, bytes)
}

/** A new device set up on the store, whose first round refuses the damaged image by name. */
async function newDeviceRefusingImage(store: ReturnType<typeof newFolderStore>): Promise<Device> {
  const c = await openDevice('C')
  opened.push(c)
  await c.setup(store)
  expect((await c.sync()).error).toMatchObject({ code: 'SyncTampered', message: expect.stringContaining('.img.0000') })
  return c
}

/** Writes a conversation of 20 messages on `d` under `title`. */
const historyOn = (d: Device) => (title: string) => {
  const conv = newConversation(d, title)
  for (let i = 0; i < 20; i++) svc(d).store.messages.create({ conversationId: conv.id, role: 'user', content: text(`${title} ${i}`) })
  return conv
}

describe('the newest snapshot\'s image damaged', () => {
  it('a new device starts from the snapshot before it, and catches up when the next one is written', { timeout: 60_000 }, async () => {
    const store = newFolderStore()
    // A snapshot every round, its image in small chunks.
    const a = await openDevice('A', { compactBytes: 1, imageChunk: 64 * 1024 })
    opened.push(a)
    await a.setup(store)
    const history = historyOn(a)
    const early = history('early')
    await a.sync()
    history('later')
    await a.sync()
    const snapshots = snapshotsIn(store)
    expect(snapshots).toHaveLength(2)
    damageImage(store, snapshots[1]!)

    const c = await newDeviceRefusingImage(store)
    await c.sync()
    expect(svc(c).store.messages.count(early.id)).toBe(20)
    // The next snapshot brings the rest.
    history('after the damage')
    await a.sync()
    await c.sync()
    expect(contents(c).messages).toEqual(contents(a).messages)
  })
})

describe('a snapshot another device refused', () => {
  it('its writer writes another at its next round, with nothing new to send, and the new device catches up', { timeout: 60_000 }, async () => {
    const store = newFolderStore()
    // Each history below goes out as a snapshot (a long backlog); nothing else makes one.
    const a = await openDevice('A', { snapshotBacklog: 10, imageChunk: 64 * 1024 })
    opened.push(a)
    await a.setup(store)
    const history = historyOn(a)
    history('early')
    await a.sync()
    const later = history('later')
    await a.sync()
    damageImage(store, snapshotsIn(store).at(-1)!)

    const c = await newDeviceRefusingImage(store)
    // A has nothing new; it reads C's record and writes a snapshot again.
    await a.sync()
    await c.sync()
    await c.sync()
    expect(svc(c).store.messages.count(later.id)).toBe(20)
    expect(contents(c).messages).toEqual(contents(a).messages)
    // Answered once: further rounds of A write no more snapshots.
    const was = snapshotsIn(store)
    await a.sync()
    await a.sync()
    expect(snapshotsIn(store).length).toBe(was.length)
    expect(snapshotsIn(store)).toEqual(was)
    // The damaged snapshot is gone from the store: C no longer names it.
    expect((await c.sync()).error).toBeUndefined()
  })
})

describe('a key file replaced by someone without the passphrase', () => {
  it('one of gigabytes is not read: setting up says what happened and how to put it back, and changes nothing', async () => {
    const store = newFolderStore()
    mkdirSync(join(store.path, 'meta'))
    writeFileSync(join(store.path, 'meta', 'keys.json'), '')
    truncateSync(join(store.path, 'meta', 'keys.json'), 8 * GiB)
    const c = await openDevice('C')
    opened.push(c)
    const before = contents(c)
    const error = await c.setup(store).catch((e: unknown) => e)
    expect(error).toMatchObject({ errorType: 'SyncStoreInvalid', message: expect.stringContaining('meta/keys.json') })
    expect(contents(c)).toEqual(before)
    expect((await c.call('sync.status', {})) as { state: string }).toMatchObject({ state: 'off' })
  })
})

describe('the key file deleted from the store (by hand, or lost by a program carrying the folder)', () => {
  it('is put back by the next round of a device that syncs, so a device set up afterwards gets the same key', async () => {
    const { a, b, folder } = await pair()
    const made = newConversation(a, 'before the key file went')
    await converge([a, b])
    const original = readFileSync(join(folder, 'meta', 'keys.json'))
    rmSync(join(folder, 'meta', 'keys.json'))
    await a.sync()
    expect(readFileSync(join(folder, 'meta', 'keys.json')).equals(original)).toBe(true)
    const c = await openDevice('C')
    opened.push(c)
    await c.setup({ kind: 'folder', path: folder })
    const status = await c.sync()
    expect(status.error).toBeUndefined()
    expect(svc(c).store.conversations.get(made.id)?.title).toBe('before the key file went')
    await converge([a, b, c])
    expect((await a.sync()).error).toBeUndefined()
    expect(contents(c)).toEqual(contents(a))
  })

  it('replaced by another key\'s file: named; deleted there, it is put back and the warning goes', async () => {
    const { a, folder } = await pair()
    const elsewhere = newFolderStore()
    const d = await openDevice('D')
    opened.push(d)
    await d.setup(elsewhere, 'another passphrase entirely')
    const original = readFileSync(join(folder, 'meta', 'keys.json'))
    writeFileSync(join(folder, 'meta', 'keys.json'), readFileSync(join(elsewhere.path, 'meta', 'keys.json')))
    expect((await a.sync()).error).toMatchObject({ code: 'SyncTampered', message: expect.stringContaining('meta/keys.json') })
    rmSync(join(folder, 'meta', 'keys.json'))
    expect((await a.sync()).error).toBeUndefined()
    expect(readFileSync(join(folder, 'meta', 'keys.json')).equals(original)).toBe(true)
  })
})

describe('what sync writes', () => {
  it('stays under the size every device reads: long messages go fewer to a segment, and all arrive', async () => {
    const store = newFolderStore()
    const segmentBytes = 1024 * 1024
    const a = await openDevice('A', { segmentBytes })
    const b = await openDevice('B')
    opened.push(a, b)
    await a.setup(store)
    await b.setup(store)
    const conv = newConversation(a, 'long replies')
    for (let i = 0; i < 12; i++) svc(a).store.messages.create({ conversationId: conv.id, role: 'assistant', content: text(`reply ${i} `.padEnd(300 * 1024, 'x')) })
    const { deviceId } = await a.sync()
    const dir = join(store.path, 'segments', deviceId)
    const sizes = readdirSync(dir).map((f) => statSync(join(dir, f)).size)
    // 3.6 MB of replies: at least four segments, none over the limit (plus the seal's few hundred bytes).
    expect(sizes.length).toBeGreaterThanOrEqual(4)
    for (const size of sizes) expect(size).toBeLessThan(segmentBytes + 1024)
    await b.sync()
    expect(svc(b).store.messages.count(conv.id)).toBe(12)
    expect(contents(b)).toEqual(contents(a))
  })
})
