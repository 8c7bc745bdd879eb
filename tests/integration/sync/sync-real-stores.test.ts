/**
 * Sync through each real store, not only a folder: the shared store contract, then two data
 * folders (two devices) that edit offline, delete against add, and converge — through s3rver,
 * `rclone serve webdav` and a fresh PostgreSQL cluster, all on loopback (tests/support/sync-servers.ts).
 * PostgreSQL pushes (LISTEN/NOTIFY): there a change reaches the other device with no poll at all.
 * The hard cases run through each store too: clocks an hour apart, a killed upload, the store gone
 * for a while, a fresh device from a snapshot image in many chunks, a tampered segment.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { openSyncStore } from '../../../src/core/sync/stores'
import { SyncStoreError } from '../../../src/core/sync/store'
import { useStorePlaces } from './store-places'
import { contents, converge, openDevice, text, type Device } from './devices'
import { describeSyncStoreContract } from './store-contract'

// The server stores only: a folder has its own tests.
const { folder: _folder, ...places } = useStorePlaces('place')

for (const [kind, place] of Object.entries(places)) {
  describeSyncStoreContract(kind, async () => {
    const { config, secret } = await place()
    return openSyncStore(config, secret)
  })
}

const opened: Device[] = []
afterEach(async () => {
  for (const d of opened.splice(0)) await d.close().catch(() => undefined)
})

const svc = (d: Device) => d.core.services()
const agentOf = (d: Device) => svc(d).chat.defaultAgent().id

async function pair(kind: keyof typeof places, timings?: { pollMs?: number; localCheckMs?: number; debounceMs?: number }) {
  const { config, secret } = await place(kind)
  const a = await openDevice('A', timings ? { timings } : {})
  const b = await openDevice('B', timings ? { timings } : {})
  opened.push(a, b)
  for (const d of [a, b]) await d.call('sync.setup', { store: config, secret, passphrase: 'correct horse battery', deviceName: d.name })
  return [a, b] as const
}
const place = (kind: keyof typeof places) => places[kind]()


for (const kind of Object.keys(places) as Array<keyof typeof places>) {
  describe(`two devices through ${kind}`, () => {
    it('offline edits on both, a delete against an add: both converge to the same conversations, nothing lost', { timeout: 60_000 }, async () => {
      const [a, b] = await pair(kind)
      const shared = svc(a).store.conversations.create({ agentId: agentOf(a), title: 'Shared' })
      const doomed = svc(a).store.conversations.create({ agentId: agentOf(a), title: 'Doomed' })
      await converge([a, b])
      expect(svc(b).store.conversations.get(shared.id)?.title).toBe('Shared')

      const onA = svc(a).store.conversations.create({ agentId: agentOf(a), title: 'Only on A' })
      svc(a).store.conversations.update(shared.id, { title: 'A renamed' })
      const added = svc(b).store.messages.create({ conversationId: doomed.id, role: 'user', content: text('added on B') })
      await new Promise((r) => setTimeout(r, 20))
      svc(b).store.conversations.update(shared.id, { title: 'B renamed' })
      svc(a).store.conversations.delete(doomed.id)
      await a.sync()
      await b.sync()
      await converge([a, b])

      expect(contents(a)).toEqual(contents(b))
      expect(svc(b).store.conversations.get(onA.id)?.title).toBe('Only on A')
      expect(svc(a).store.conversations.get(shared.id)?.title).toBe('B renamed')
      // The message added where the delete was not yet seen survives, its conversation restored.
      expect(svc(a).store.messages.get(added.id)?.content).toEqual(text('added on B'))
    })

    it('clocks an hour apart, a killed upload, the store gone a while, a fresh device from a snapshot image, a tampered segment: all converge', { timeout: 120_000 }, async () => {
      const { config, secret } = await place(kind)
      const hour = 3_600_000
      const a = await openDevice('A', { skewMs: hour })
      const b = await openDevice('B', { skewMs: -hour })
      opened.push(a, b)
      const join = (d: Device) => d.call('sync.setup', { store: config, secret, passphrase: 'correct horse battery', deviceName: d.name })
      for (const d of [a, b]) await join(d)
      const conv = svc(a).store.conversations.create({ agentId: agentOf(a), title: 'History (A, clock +1 h)' })
      svc(a).store.db.transaction(() => {
        for (let i = 0; i < 1_000; i++) svc(a).store.messages.create({ conversationId: conv.id, role: i % 2 ? 'assistant' : 'user', content: text(`message ${i} of a long history `.repeat(4)) })
      })
      await converge([a, b])
      expect(svc(b).store.messages.count(conv.id)).toBe(1_000)

      // B's clock is two hours behind A's; its edit, made after seeing A's, is the later one.
      svc(b).store.conversations.update(conv.id, { title: 'renamed on B (clock -1 h)' })
      await converge([a, b])
      expect(svc(a).store.conversations.get(conv.id)?.title).toBe('renamed on B (clock -1 h)')

      // A killed mid-upload leaves half a segment in the store; B goes offline for a while.
      const half = svc(a).store.conversations.create({ agentId: agentOf(a), title: 'Half sent' })
      a.fault.halfPut = true
      expect((await a.sync()).state).toBe('offline')
      a.fault.halfPut = false
      b.fault.error = new SyncStoreError('SyncStoreUnreachable', 'connect ECONNREFUSED 127.0.0.1:9')
      const queued = svc(b).store.conversations.create({ agentId: agentOf(b), title: 'Queued on B' })
      expect((await b.sync()).state).toBe('offline')
      b.fault.error = undefined
      await converge([a, b])
      for (const d of [a, b]) expect([svc(d).store.conversations.get(half.id)?.title, svc(d).store.conversations.get(queued.id)?.title]).toEqual(['Half sent', 'Queued on B'])

      // D writes a snapshot whose image travels in many chunks; a fresh C adopts it.
      const d = await openDevice('D', { compactBytes: 1, imageChunk: 64 * 1024 })
      const c = await openDevice('C')
      opened.push(c, d)
      await join(d)
      await d.sync()
      const raw = await openSyncStore(config, secret)
      try {
        expect((await raw.list('snapshots/')).filter((o) => /\.img\.\d{4}$/.test(o.key)).length).toBeGreaterThan(1)
        await join(c)
        await c.sync()
        expect(svc(c).store.messages.count(conv.id)).toBe(1_000)
        await converge([a, b, c, d])
        for (const other of [b, c, d]) expect(contents(other)).toEqual(contents(a))

        // A segment of A altered in the store itself: refused and named by B, the next one merges.
        // B must not read it before it is altered: over PostgreSQL, A's writes notify B, whose own
        // round could merge the segment first (seen once in CI). B's store is unreachable meanwhile.
        await b.sync()
        b.fault.error = new SyncStoreError('SyncStoreUnreachable', 'held off while the test alters the store')
        const first = svc(a).store.conversations.create({ agentId: agentOf(a), title: 'in the tampered segment' })
        const { deviceId } = await a.sync()
        const second = svc(a).store.conversations.create({ agentId: agentOf(a), title: 'in the next segment' })
        await a.sync()
        const segments = (await raw.list(`segments/${deviceId}/`)).map((o) => o.key).sort()
        const victim = segments[segments.length - 2]!
        const bytes = Buffer.from((await raw.get(victim))!)
        bytes[bytes.length - 20] = bytes[bytes.length - 20]! ^ 0xff
        await raw.put(victim, bytes)
        b.fault.error = undefined
        const status = await b.sync()
        expect(status.error).toMatchObject({ code: 'SyncTampered', message: expect.stringContaining(victim) })
        expect(svc(b).store.conversations.get(first.id)).toBeUndefined()
        expect(svc(b).store.conversations.get(second.id)?.title).toBe('in the next segment')
      } finally {
        await raw.close()
      }
    })

    it('a wrong passphrase on the second device is refused and nothing is merged', { timeout: 60_000 }, async () => {
      const { config, secret } = await place(kind)
      const a = await openDevice('A')
      const b = await openDevice('B')
      opened.push(a, b)
      await a.call('sync.setup', { store: config, secret, passphrase: 'correct horse battery' })
      svc(a).store.conversations.create({ agentId: agentOf(a), title: 'Secret' })
      await a.sync()
      await expect(b.call('sync.setup', { store: config, secret, passphrase: 'wrong horse battery' })).rejects.toMatchObject({ errorType: 'SyncWrongPassphrase' })
      expect(svc(b).store.conversations.list().some((c) => c.title === 'Secret')).toBe(false)
    })
  })
}

it('PostgreSQL pushes: a conversation made on A shows on B within 2 s with polling an hour apart', { timeout: 60_000 }, async () => {
  const [a, b] = await pair('postgres', { pollMs: 3_600_000, localCheckMs: 100, debounceMs: 50 })
  await converge([a, b])
  const started = Date.now()
  const conv = svc(a).store.conversations.create({ agentId: agentOf(a), title: 'pushed' })
  await expect.poll(() => svc(b).store.conversations.get(conv.id)?.title, { timeout: 10_000, interval: 25 }).toBe('pushed')
  expect(Date.now() - started).toBeLessThan(2_000)
})

it('PostgreSQL: two devices with nothing to send stay at rest; a round does not wake the other device', { timeout: 60_000 }, async () => {
  const [a, b] = await pair('postgres', { pollMs: 3_600_000, localCheckMs: 100, debounceMs: 50 })
  await converge([a, b])
  await new Promise((resolve) => setTimeout(resolve, 500))
  // Every round reads the device records: a round at rest shows as their reads.
  const reads: string[] = []
  a.fault.gets = reads
  b.fault.gets = reads
  await new Promise((resolve) => setTimeout(resolve, 3_000))
  expect(reads).toEqual([])
  // A change still reaches the other device at once.
  const conv = svc(a).store.conversations.create({ agentId: agentOf(a), title: 'woken' })
  await expect.poll(() => svc(b).store.conversations.get(conv.id)?.title, { timeout: 5_000, interval: 25 }).toBe('woken')
})
