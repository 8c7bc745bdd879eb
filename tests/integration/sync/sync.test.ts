import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { SyncStoreError } from '../../../src/core/sync/store'
import { DEVICE_RECORD_REFRESH_MS } from '../../../src/core/sync/engine'
import { ChangeLog } from '../../../src/core/sync/change-log'
import { formatHlc, HybridClock } from '../../../src/core/sync/hlc'
import { MemoryBackend } from '../../../src/core/secrets'
import { contents, converge, openDevice, text, type Device } from './devices'
import { startTestCore } from '../test-core'

const opened: Device[] = []
afterEach(async () => {
  for (const d of opened.splice(0)) await d.close().catch(() => undefined)
})

async function devices(n: number, options: { skews?: number[]; compactAfter?: number } = {}) {
  const folder = mkdtempSync(join(tmpdir(), 'sb-sync-store-'))
  const list: Device[] = []
  for (let i = 0; i < n; i++) {
    const d = await openDevice(String.fromCharCode(65 + i), { skewMs: options.skews?.[i] ?? 0, ...(options.compactAfter ? { compactAfter: options.compactAfter } : {}) })
    opened.push(d)
    list.push(d)
  }
  const store = { kind: 'folder' as const, path: folder }
  for (const d of list) await d.setup(store)
  return { folder, store, list }
}

const svc = (d: Device) => d.core.services()
const agentOf = (d: Device) => svc(d).chat.defaultAgent().id


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

  it('two new installs share one default agent once they sync, not one each', async () => {
    const { list } = await devices(2)
    await converge(list)
    for (const d of list) expect(svc(d).store.agents.list().map((a) => a.name)).toEqual(['Just Chat'])
    expect(contents(list[0]!).agents).toEqual(contents(list[1]!).agents)
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
    // And below the hashes: a merged row does not even reach the outbox (the triggers are paused while applying).
    const db = svc(b).store.db.sqlite
    const at = formatHlc(Date.now(), 0, 'other')
    const fields = { agent_id: agentOf(b), title: 'merged', provider_id: null, model_id: null, parameters: null, pinned: 0, created_at: 1, updated_at: 1 }
    const merged = new ChangeLog(svc(b).store.db, new HybridClock('other')).merge([{ t: 'conversations', k: 'merged-conv', f: Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, [at, v]])) }], svc(b).sync.status().scope, { other: 1 })
    expect(merged.applied).toBe(1)
    expect(svc(b).store.conversations.get('merged-conv')?.title).toBe('merged')
    expect(db.prepare('SELECT COUNT(*) AS n FROM sync_outbox').get()).toEqual({ n: 0 })
    svc(b).store.conversations.update('merged-conv', { title: 'edited here' })
    expect(db.prepare('SELECT COUNT(*) AS n FROM sync_outbox').get()).toEqual({ n: 1 })
  })

  it('a conversation deleted on A while B adds a message to it: the message survives, its conversation restored on both', async () => {
    const { list } = await devices(2)
    const [a, b] = list as [Device, Device]
    const conv = svc(a).store.conversations.create({ agentId: agentOf(a), title: 'Doomed' })
    const old = svc(a).store.messages.create({ conversationId: conv.id, role: 'user', content: text('old') })
    await converge(list)
    // Offline on both: B adds a message first, A deletes the conversation after.
    const added = svc(b).store.messages.create({ conversationId: conv.id, role: 'user', content: text('added on B') })
    await new Promise((r) => setTimeout(r, 20))
    expect(svc(a).store.conversations.delete(conv.id)).toBe(true)
    await a.sync()
    const atB = await b.sync()
    expect(atB.lastMerge?.recovered).toBe(1)
    await converge(list)
    expect(contents(a)).toEqual(contents(b))
    for (const d of list) {
      expect(svc(d).store.conversations.get(conv.id)?.title).toBe('Doomed')
      expect(svc(d).store.messages.get(added.id)?.content).toEqual(text('added on B'))
      // The message A deleted with its conversation stays deleted.
      expect(svc(d).store.messages.get(old.id)).toBeUndefined()
    }
  })

  it('a message parked here, then deleted, then brought back with its restored conversation is held (one merge meets two copies of it)', async () => {
    const { list } = await devices(2)
    const [a, b] = list as [Device, Device]
    // The records as another device made them (B, not synced): a conversation and a message in it.
    const conv = svc(b).store.conversations.create({ agentId: agentOf(b), title: 'Deleted here' })
    const message = svc(b).store.messages.create({ conversationId: conv.id, role: 'user', content: text('parked, deleted, back') })
    const bdb = svc(b).store.db.sqlite
    const convRow = bdb.prepare('SELECT * FROM conversations WHERE id = ?').get(conv.id) as Record<string, unknown>
    const { seq: _seq, id: _id, ...messageRow } = bdb.prepare('SELECT * FROM messages WHERE id = ?').get(message.id) as Record<string, unknown>
    void _seq
    void _id
    const db = svc(a).store.db.sqlite
    const scope = svc(a).sync.status().scope
    const log = new ChangeLog(svc(a).store.db, new HybridClock(svc(a).sync.status().deviceId))
    const now = Date.now()
    const convFields = (at: string) => Object.fromEntries(Object.entries(convRow).filter(([k]) => k !== 'id').map(([k, v]) => [k, [at, v]])) as never
    log.merge([{ t: 'conversations', k: conv.id, f: convFields(formatHlc(now - 10_000, 0, 'other')) }], scope, { other: 1 })
    // Deleted here; the message written there meanwhile arrives and waits for its conversation.
    svc(a).store.conversations.delete(conv.id)
    log.merge([{ t: 'messages', k: message.id, f: { '*': [formatHlc(now - 5_000, 0, 'other'), messageRow] } as never }], scope, { other: 2 })
    // Its writer deletes it (the deletion comes in a merge of its own).
    log.merge([{ t: 'messages', k: message.id, d: formatHlc(now - 4_000, 0, 'other') }], scope, { other: 3 })
    // A third device restored the conversation and stamped the message anew, later than both deletions.
    const back = formatHlc(now + 1_000, 0, 'third')
    log.merge([{ t: 'conversations', k: conv.id, f: convFields(back) }, { t: 'messages', k: message.id, f: { '*': [back, messageRow] } as never }], scope, { third: 1 })
    expect(svc(a).store.conversations.get(conv.id)?.title).toBe('Deleted here')
    // Its stamps say it is there: so must its row (the other devices hold it).
    expect(svc(a).store.messages.get(message.id)?.content).toEqual(text('parked, deleted, back'))
    expect(db.prepare('SELECT COUNT(*) AS n FROM sync_parked').get()).toEqual({ n: 0 })
  })

  it('a conversation restored after a delete and then deleted again is deleted everywhere', async () => {
    const { list } = await devices(2)
    const [a, b] = list as [Device, Device]
    const conv = svc(a).store.conversations.create({ agentId: agentOf(a), title: 'Twice deleted' })
    await converge(list)
    // Restored once: B added a message A never saw while A deleted the conversation.
    svc(b).store.messages.create({ conversationId: conv.id, role: 'user', content: text('added on B') })
    await new Promise((r) => setTimeout(r, 20))
    svc(a).store.conversations.delete(conv.id)
    await converge(list)
    expect(svc(a).store.conversations.get(conv.id)?.title).toBe('Twice deleted')
    // Deleted again, now that A has seen everything: it stays deleted, on both.
    svc(a).store.conversations.delete(conv.id)
    await converge(list)
    for (const d of list) expect(svc(d).store.conversations.get(conv.id)).toBeUndefined()
    expect(contents(a)).toEqual(contents(b))
  })

  it('a message that arrives after its conversation was deleted here brings it back at once, not lost', async () => {
    const { list } = await devices(2)
    const [a, b] = list as [Device, Device]
    const conv = svc(a).store.conversations.create({ agentId: agentOf(a), title: 'Doomed' })
    await converge(list)
    // B's message reaches the store first; A deletes the conversation before it reads it. The
    // message comes with the conversation's whole state, so A puts it back and weighs its own
    // deletion against the message it never saw (decision 142): restored, as on B.
    const added = svc(b).store.messages.create({ conversationId: conv.id, role: 'user', content: text('added on B') })
    await b.sync()
    svc(a).store.conversations.delete(conv.id)
    await a.sync()
    expect(svc(a).store.conversations.get(conv.id)?.title).toBe('Doomed')
    expect(svc(a).store.messages.get(added.id)?.content).toEqual(text('added on B'))
    await b.sync()
    await converge(list)
    expect(contents(a)).toEqual(contents(b))
    expect(svc(a).store.messages.get(added.id)?.content).toEqual(text('added on B'))
  })

  it('a delete newer than an edit wins; an edit made after seeing the delete brings nothing back unasked', async () => {
    const { list } = await devices(2)
    const [a, b] = list as [Device, Device]
    const conv = svc(a).store.conversations.create({ agentId: agentOf(a), title: 'To delete' })
    await converge(list)
    svc(b).store.conversations.update(conv.id, { title: 'edited earlier' })
    await new Promise((r) => setTimeout(r, 20))
    svc(a).store.conversations.delete(conv.id)
    await converge(list)
    expect(contents(a)).toEqual(contents(b))
    expect(svc(b).store.conversations.get(conv.id)).toBeUndefined()
  })

  it('clocks an hour apart: an edit made after seeing another device’s edit wins, whatever the clocks say', async () => {
    const hour = 3_600_000
    const { list } = await devices(2, { skews: [hour, -hour] })
    const [a, b] = list as [Device, Device]
    const conv = svc(a).store.conversations.create({ agentId: agentOf(a), title: 'first (A, clock +1 h)' })
    await converge(list)
    // B's clock is two hours behind A's, but B edits after seeing A's title: B's edit is the later one.
    svc(b).store.conversations.update(conv.id, { title: 'second (B, clock -1 h)' })
    await converge(list)
    expect(svc(a).store.conversations.get(conv.id)?.title).toBe('second (B, clock -1 h)')
    svc(a).store.conversations.update(conv.id, { title: 'third (A)' })
    await converge(list)
    expect(svc(b).store.conversations.get(conv.id)?.title).toBe('third (A)')
    expect(contents(a)).toEqual(contents(b))
  })

  it('a device killed mid-upload: its half segment is ignored, the next run writes it whole', async () => {
    const { list, folder } = await devices(2)
    const [a, b] = list as [Device, Device]
    await converge(list)
    const conv = svc(a).store.conversations.create({ agentId: agentOf(a), title: 'Half sent' })
    a.fault.halfPut = true
    const failed = await a.sync()
    expect(failed.state).toBe('offline')
    const dir = join(folder, 'segments', failed.deviceId)
    expect(readdirSync(dir).length).toBeGreaterThan(0)
    await b.sync()
    expect(svc(b).store.conversations.get(conv.id)).toBeUndefined()
    expect((await b.sync()).error).toBeUndefined()
    a.fault.halfPut = false
    expect((await a.sync()).state).toBe('idle')
    await b.sync()
    expect(svc(b).store.conversations.get(conv.id)?.title).toBe('Half sent')
    expect(contents(a)).toEqual(contents(b))
  })

  it('the store unreachable for a while: changes are kept, retried, and arrive', async () => {
    const { list } = await devices(2)
    const [a, b] = list as [Device, Device]
    a.fault.error = new SyncStoreError('SyncStoreUnreachable', 'connect ECONNREFUSED 127.0.0.1:9')
    const made = Array.from({ length: 5 }, (_, i) => svc(a).store.conversations.create({ agentId: agentOf(a), title: `queued ${i}` }))
    const offline = await a.sync()
    expect(offline).toMatchObject({ state: 'offline', error: { code: 'SyncStoreUnreachable' } })
    expect(offline.nextRetryAt).toBeGreaterThan(Date.now())
    expect(offline.pendingChanges).toBeGreaterThanOrEqual(5)
    a.fault.error = undefined
    expect(await a.sync()).toMatchObject({ state: 'idle', pendingChanges: 0 })
    await b.sync()
    for (const c of made) expect(svc(b).store.conversations.get(c.id)?.title).toBe(c.title)
  })

  it('the store full: an error that names the fix, nothing lost, done when there is space again', async () => {
    const { list } = await devices(2)
    const [a, b] = list as [Device, Device]
    const conv = svc(a).store.conversations.create({ agentId: agentOf(a), title: 'Waiting for space' })
    a.fault.error = new SyncStoreError('SyncStoreFull', 'ENOSPC: no space left on device')
    const full = await a.sync()
    expect(full).toMatchObject({ state: 'error', error: { code: 'SyncStoreFull', fix: expect.stringMatching(/free space/i) } })
    expect(full.pendingChanges).toBeGreaterThan(0)
    a.fault.error = undefined
    expect((await a.sync()).state).toBe('idle')
    await b.sync()
    expect(svc(b).store.conversations.get(conv.id)?.title).toBe('Waiting for space')
  })

  it('a tampered segment is refused and named; the rest still merges', async () => {
    const { list, folder } = await devices(2)
    const [a, b] = list as [Device, Device]
    await converge(list)
    const first = svc(a).store.conversations.create({ agentId: agentOf(a), title: 'in the tampered segment' })
    const { deviceId } = await a.sync()
    const second = svc(a).store.conversations.create({ agentId: agentOf(a), title: 'in the next segment' })
    await a.sync()
    const files = readdirSync(join(folder, 'segments', deviceId)).sort()
    const victim = join(folder, 'segments', deviceId, files[files.length - 2]!)
    const bytes = readFileSync(victim)
    bytes[bytes.length - 20] = bytes[bytes.length - 20]! ^ 0xff
    writeFileSync(victim, bytes)
    const status = await b.sync()
    expect(status.error).toMatchObject({ code: 'SyncTampered', message: expect.stringContaining(files[files.length - 2]!) })
    expect(svc(b).store.conversations.get(first.id)).toBeUndefined()
    expect(svc(b).store.conversations.get(second.id)?.title).toBe('in the next segment')
  })

  it('the same passphrase typed wrong: refused, nothing merged, nothing changed on this device', async () => {
    const { store, list } = await devices(1)
    svc(list[0]!).store.conversations.create({ agentId: agentOf(list[0]!), title: 'secret' })
    await list[0]!.sync()
    const c = await openDevice('C')
    opened.push(c)
    const before = contents(c)
    await expect(c.setup(store, 'correct horse battery staple')).rejects.toMatchObject({ errorType: 'SyncWrongPassphrase' })
    expect(contents(c)).toEqual(before)
    expect(await c.call('sync.status', {})).toMatchObject({ state: 'off' })
  })

  it("a store whose key file has not fully arrived (another sync program still carrying it): refused with a fix, nothing changed, and it works once the file is whole", async () => {
    const { folder, store, list } = await devices(1)
    svc(list[0]!).store.conversations.create({ agentId: agentOf(list[0]!), title: 'from A' })
    await list[0]!.sync()
    const keys = join(folder, 'meta', 'keys.json')
    const whole = readFileSync(keys)
    const c = await openDevice('C')
    opened.push(c)
    const before = contents(c)
    for (const partial of [Buffer.alloc(0), whole.subarray(0, Math.floor(whole.length / 2))]) {
      writeFileSync(keys, partial)
      const error = await c.setup(store).then(
        () => undefined,
        (e: { errorType?: string; message: string }) => e
      )
      expect(error?.errorType).toBe('SyncStoreInvalid')
      expect(error?.message).toMatch(/meta\/keys\.json/)
      expect(error?.message).toMatch(/not (fully )?arrived|still|wait/i)
      // Not replaced by a key of this device's own: the store's key is the first device's.
      expect(readFileSync(keys)).toEqual(partial)
      expect(contents(c)).toEqual(before)
      expect(await c.call('sync.status', {})).toMatchObject({ state: 'off' })
    }
    writeFileSync(keys, whole)
    await c.setup(store)
    await c.sync()
    expect(svc(c).store.conversations.list().map((x) => x.title)).toContain('from A')
  })

  it('settings sync except the ones that describe this machine', async () => {
    const { list } = await devices(2)
    const [a, b] = list as [Device, Device]
    svc(a).store.settings.set({ titleModel: { providerId: 'openai', modelId: 'gpt-4o-mini' }, localApi: { port: 4242 }, toolServers: [] })
    await converge(list)
    expect(svc(b).store.settings.app().titleModel).toEqual({ providerId: 'openai', modelId: 'gpt-4o-mini' })
    expect(svc(b).store.settings.get().localApi).toBeUndefined()
    expect(svc(b).store.settings.get().toolServers).toBeUndefined()
  })

  it("the local servers' addresses (decision 158) never leave the device; the other device keeps its own", async () => {
    const { list } = await devices(2)
    const [a, b] = list as [Device, Device]
    for (const kind of ['ollama', 'lmstudio', 'vllm', 'xinference'] as const) svc(a).local.settings.set(kind, `http://a-only-${kind}:1`)
    svc(b).local.settings.set('ollama', 'http://b-only:11434')
    svc(a).store.settings.set({ searchMaxUses: 3 })
    await converge(list)
    // The synced setting beside them arrived, so the addresses were not merely late.
    expect(svc(b).store.settings.app().searchMaxUses).toBe(3)
    const onB = svc(b).store.settings.get()
    expect([onB['ollama'], onB['lmstudio'], onB['vllm'], onB['xinference']]).toEqual(['http://b-only:11434', undefined, undefined, undefined])
    expect(svc(a).store.settings.get()['ollama']).toBe('http://a-only-ollama:1')
  })

  it('a fresh device starts from a snapshot; compacted segments are gone from the store', async () => {
    const { list, folder, store } = await devices(2, { compactAfter: 4 })
    const [a, b] = list as [Device, Device]
    const conv = svc(a).store.conversations.create({ agentId: agentOf(a), title: 'Compacted' })
    for (let i = 0; i < 6; i++) {
      svc(a).store.messages.create({ conversationId: conv.id, role: 'user', content: text(`m${i}`) })
      await a.sync()
    }
    await converge(list)
    expect(readdirSync(join(folder, 'snapshots')).length).toBeGreaterThan(0)
    const aSegments = readdirSync(join(folder, 'segments', svc(a).sync.status().deviceId))
    expect(aSegments.length).toBeLessThan(6)
    const c = await openDevice('C', { compactAfter: 4 })
    opened.push(c)
    await c.setup(store)
    await c.sync()
    await converge([a, b, c])
    expect(contents(c)).toEqual(contents(a))
    expect(svc(c).store.messages.list(conv.id)).toHaveLength(6)
  })

  it('a device does not write the history again while the one whose segment made it due is writing it', async () => {
    const { list, folder } = await devices(2, { compactAfter: 4 })
    const [a, b] = list as [Device, Device]
    await converge(list)
    const conv = svc(a).store.conversations.create({ agentId: agentOf(a), title: 'Chatting on A' })
    const snapshotsBy = (d: Device) => (existsSync(join(folder, 'snapshots')) ? readdirSync(join(folder, 'snapshots')) : []).filter((n) => n.endsWith(`-${svc(d).sync.status().deviceId}.snap`))
    const before = snapshotsBy(b).length
    // A's upload of its snapshot is held until B has run a round: over PostgreSQL, A's segment
    // wakes B at once, and B's round runs while A is still uploading the history.
    let release = () => {}
    const held = new Promise<void>((resolve) => (release = resolve))
    let compacting = () => {}
    const started = new Promise<void>((resolve) => (compacting = resolve))
    a.fault.putWaits = (key) => (key.startsWith('snapshots/') ? (compacting(), held) : undefined)
    let round: Promise<unknown> | undefined
    for (let i = 0; i < 12 && !round; i++) {
      svc(a).store.messages.create({ conversationId: conv.id, role: 'user', content: text(`m${i}`) })
      const going = a.sync()
      if ((await Promise.race([going.then(() => false), started.then(() => true)])) === true) round = going
    }
    expect(round).toBeDefined()
    await b.sync()
    release()
    await round
    expect(snapshotsBy(a)).toHaveLength(1)
    expect(snapshotsBy(b)).toHaveLength(before)
    await converge(list)
    expect(snapshotsBy(b)).toHaveLength(before)
    expect(contents(b)).toEqual(contents(a))
  })

  it('after a restart the device keeps syncing without the passphrase; without its key it is locked until unlocked', async () => {
    const { list, store } = await devices(2)
    const b = list[1]!
    await converge(list)
    const a = await list[0]!.reopen()
    opened.push(a)
    await new Promise((r) => setTimeout(r, 50))
    const conv = svc(a).store.conversations.create({ agentId: agentOf(a), title: 'after restart' })
    expect((await a.sync()).state).toBe('idle')
    await b.sync()
    expect(svc(b).store.conversations.get(conv.id)?.title).toBe('after restart')
    // The keychain lost the key (another user account, a wiped keychain): locked, never silently off.
    await b.close()
    const fresh = await openDevice('B', { dataDir: b.dataDir, keychain: new MemoryBackend() })
    opened.push(fresh)
    await new Promise((r) => setTimeout(r, 50))
    expect(await fresh.call('sync.status', {})).toMatchObject({ state: 'locked', store })
    await expect(fresh.call('sync.unlock', { passphrase: 'wrong wrong wrong' })).rejects.toMatchObject({ errorType: 'SyncWrongPassphrase' })
    expect(await fresh.call('sync.unlock', { passphrase: 'correct horse battery' })).toMatchObject({ state: expect.stringMatching(/idle|syncing/) })
    expect((await fresh.sync()).state).toBe('idle')
  })

  it('browser mode with a password: sync is read-only there (a store address is a host resource)', async () => {
    const app = await startTestCore('sb-sync-remote-', { mode: 'browser', access: { password: 'pw', sessionKeys: new Set<string>() }, secrets: { backend: new MemoryBackend() } })
    const core = app.core
    const client = app.client
    try {
      expect(await client.call('sync.status', {})).toMatchObject({ ok: true, value: { state: 'off', canChange: false } })
      const refused = await client.call('sync.setup', { store: { kind: 'folder', path: tmpdir() }, passphrase: 'correct horse battery' })
      expect(refused).toMatchObject({ ok: false, error: { errorType: 'SyncUnavailable' } })
      // Nor may it forget a device or make this one join again.
      expect(await client.call('sync.forgetDevice', { deviceId: 'another' })).toMatchObject({ ok: false, error: { errorType: 'SyncUnavailable' } })
      expect(await client.call('sync.rejoin', {})).toMatchObject({ ok: false, error: { errorType: 'SyncUnavailable' } })
    } finally {
      await core.close()
    }
  })

  it('10,000 messages reach a fresh device, and search finds them as soon as the sync returns', { timeout: 120_000 }, async () => {
    const { list, store } = await devices(1)
    const a = list[0]!
    const conv = svc(a).store.conversations.create({ agentId: agentOf(a), title: 'Big' })
    const db = svc(a).store.db
    db.transaction(() => {
      for (let i = 0; i < 10_000; i++) svc(a).store.messages.create({ conversationId: conv.id, role: i % 2 ? 'assistant' : 'user', content: text(`message number ${i} `.repeat(5)) })
    })
    const rare = svc(a).store.messages.create({ conversationId: conv.id, role: 'user', content: text('a quokka 快速排序算法 once') })
    await a.sync()
    const b = await openDevice('B')
    opened.push(b)
    await b.setup(store)
    await b.sync()
    expect(svc(b).store.messages.count(conv.id)).toBe(10_001)
    expect(contents(b).messages).toEqual(contents(a).messages)
    // Both indexes: words (the word index), and a run of Chinese (the trigram index).
    expect(svc(b).store.search.search('quokka').map((h) => h.messageId)).toEqual([rare.id])
    expect(svc(b).store.search.search('排序').map((h) => h.messageId)).toEqual([rare.id])
    expect(svc(b).store.search.search('number 9876').map((h) => h.messageId)).toHaveLength(1)
    // A message written on B afterwards is indexed as it is written (the per-row triggers are back).
    const later = svc(b).store.messages.create({ conversationId: conv.id, role: 'user', content: text('a wombat later') })
    expect(svc(b).store.search.search('wombat').map((h) => h.messageId)).toEqual([later.id])
  })

  it('without sync.now: a change on A reaches B by the schedulers alone (debounced send, polling)', { timeout: 60_000 }, async () => {
    const folder = mkdtempSync(join(tmpdir(), 'sb-sync-live-'))
    const timings = { pollMs: 300, localCheckMs: 100, debounceMs: 100 }
    const a = await openDevice('A', { timings })
    const b = await openDevice('B', { timings })
    opened.push(a, b)
    await a.setup({ kind: 'folder', path: folder })
    await b.setup({ kind: 'folder', path: folder })
    const conv = svc(a).store.conversations.create({ agentId: agentOf(a), title: 'live' })
    await expect.poll(() => svc(b).store.conversations.get(conv.id)?.title, { timeout: 30_000, interval: 50 }).toBe('live')
    await expect.poll(() => svc(a).sync.status().pendingChanges, { timeout: 10_000 }).toBe(0)
  })

  it('a local change is sent when it is written, not at the next look at the outbox', { timeout: 30_000 }, async () => {
    const folder = mkdtempSync(join(tmpdir(), 'sb-sync-live-'))
    // The outbox is looked at once an hour here: only the write itself can start the send.
    const a = await openDevice('A', { timings: { pollMs: 3_600_000, localCheckMs: 3_600_000, debounceMs: 50 } })
    const b = await openDevice('B', { timings: { pollMs: 100, localCheckMs: 3_600_000, debounceMs: 50 } })
    opened.push(a, b)
    await a.setup({ kind: 'folder', path: folder })
    await b.setup({ kind: 'folder', path: folder })
    await converge([a, b])
    // The rounds set-up scheduled have run: A's next is an hour away.
    await new Promise((resolve) => setTimeout(resolve, 300))
    const started = Date.now()
    const conv = svc(a).store.conversations.create({ agentId: agentOf(a), title: 'sent at once' })
    await expect.poll(() => svc(b).store.conversations.get(conv.id)?.title, { timeout: 5_000, interval: 25 }).toBe('sent at once')
    expect(Date.now() - started).toBeLessThan(2_000)
    // A reply is sent when it is finished (not while it streams), also at once.
    const reply = svc(a).store.messages.beginStreaming({ conversationId: conv.id })
    reply.appendText('streamed ')
    reply.flush()
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(svc(b).store.messages.get(reply.message.id)).toBeUndefined()
    reply.appendText('and finished')
    const finished = Date.now()
    reply.finish('complete')
    await expect.poll(() => svc(b).store.messages.get(reply.message.id)?.status, { timeout: 5_000, interval: 25 }).toBe('complete')
    expect(Date.now() - finished).toBeLessThan(2_000)
  })

  it('sync.watch streams the status as it changes, and ends when cancelled', { timeout: 30_000 }, async () => {
    const { list } = await devices(1)
    const a = list[0]!
    const states: string[] = []
    let ended = false
    const handle = a.client.stream('sync.watch', {}, { onEvent: (status) => void states.push(status.state), onEnd: () => void (ended = true) })
    await expect.poll(() => states.length).toBeGreaterThan(0)
    svc(a).store.conversations.create({ agentId: agentOf(a), title: 'watched' })
    await a.sync()
    await expect.poll(() => states.slice(-2)).toEqual(['syncing', 'idle'])
    handle.cancel()
    await expect.poll(() => ended).toBe(true)
  })

  it('API keys, once turned on, travel end-to-end encrypted: set, changed and removed on one device, the same on the others; not to a device that keeps them off', async () => {
    const { list, folder } = await devices(3)
    const [a, b, c] = list as [Device, Device, Device]
    const key = (d: Device, name = 'openai') => svc(d).secrets.readForRuntime(name)
    for (const d of [a, b]) await d.call('sync.update', { scope: { apiKeys: true } })
    const first = 'sk-synced-first-0123456789abcdefXYZ'
    await a.call('providers.setKey', { providerId: 'openai', apiKey: first })
    await a.call('providers.setCredential', { providerId: 'bedrock', name: 'accessKeyId', value: 'AKIASYNCEDTEST00001' })
    await converge(list)
    expect(await key(b)).toBe(first)
    expect(await key(b, 'bedrock.accessKeyId')).toBe('AKIASYNCEDTEST00001')
    expect(await key(c)).toBeUndefined()
    // The store holds it only sealed.
    const files = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]))
    for (const f of files(folder)) expect(readFileSync(f).includes(first)).toBe(false)
    // Changed on B: A follows. Removed on A: gone on B. Each merge is applied once (no echo back).
    const second = 'sk-synced-second-0123456789abcdefXYZ'
    await b.call('providers.setKey', { providerId: 'openai', apiKey: second })
    await converge(list)
    expect(await key(a)).toBe(second)
    await a.call('providers.removeKey', { providerId: 'openai' })
    await converge(list)
    expect(await key(b)).toBeUndefined()
    expect(await key(b, 'bedrock.accessKeyId')).toBe('AKIASYNCEDTEST00001')
    expect(svc(a).sync.status().pendingChanges).toBe(0)
    expect(svc(b).sync.status().pendingChanges).toBe(0)
    // Sync's own keychain entries never travel: B holds only its own sync key.
    expect(await key(b, `sync:key:${svc(a).sync.status().deviceId}`)).toBeUndefined()
    expect(await key(c, 'bedrock.accessKeyId')).toBeUndefined()
    // C turns them on later: it gets the keys the others sent before, and sends its own.
    await c.call('providers.setKey', { providerId: 'anthropic', apiKey: 'sk-ant-from-c-0123456789abcdef' })
    await c.call('sync.update', { scope: { apiKeys: true } })
    await converge(list)
    expect(await key(c, 'bedrock.accessKeyId')).toBe('AKIASYNCEDTEST00001')
    expect(await key(a, 'anthropic')).toBe('sk-ant-from-c-0123456789abcdef')
    expect(await key(c)).toBeUndefined()
    // Turned off on A: a key changed there stays there, and is not shown as waiting; on again, it goes.
    await a.call('sync.update', { scope: { apiKeys: false } })
    await a.call('providers.setKey', { providerId: 'anthropic', apiKey: 'sk-ant-while-off-0123456789abcdef' })
    await converge(list)
    expect(await key(b, 'anthropic')).toBe('sk-ant-from-c-0123456789abcdef')
    expect(svc(a).sync.status().pendingChanges).toBe(0)
    await a.call('sync.update', { scope: { apiKeys: true } })
    await converge(list)
    for (const d of list) expect(await key(d, 'anthropic')).toBe('sk-ant-while-off-0123456789abcdef')
  })

  it('a key changed on two devices while apart: the later change wins on both', async () => {
    const { list } = await devices(2)
    const [a, b] = list as [Device, Device]
    for (const d of list) await d.call('sync.update', { scope: { apiKeys: true } })
    await converge(list)
    await b.call('providers.setKey', { providerId: 'openai', apiKey: 'sk-earlier-on-b-0123456789abcdef' })
    await new Promise((r) => setTimeout(r, 20))
    await a.call('providers.setKey', { providerId: 'openai', apiKey: 'sk-later-on-a-0123456789abcdef' })
    await converge(list)
    for (const d of list) expect(await svc(d).secrets.readForRuntime('openai')).toBe('sk-later-on-a-0123456789abcdef')
  })
  it('a tombstone is kept until every device has merged it, then forgotten on each; nothing comes back', async () => {
    const { list, store } = await devices(3)
    const [a, b, c] = list as [Device, Device, Device]
    const conv = svc(a).store.conversations.create({ agentId: agentOf(a), title: 'Short-lived' })
    const msg = svc(a).store.messages.create({ conversationId: conv.id, role: 'user', content: text('gone soon') })
    await converge(list)
    const tombstones = (d: Device) =>
      (svc(d).store.db.sqlite.prepare('SELECT COUNT(*) AS n FROM sync_meta WHERE deleted IS NOT NULL AND key IN (?, ?)').get(conv.id, msg.id) as { n: number }).n
    svc(a).store.conversations.delete(conv.id)
    // C is away: A and B keep the deletion however often they sync.
    for (let i = 0; i < 3; i++) for (const d of [a, b]) await d.sync()
    expect(tombstones(a)).toBe(2)
    expect(tombstones(b)).toBe(2)
    expect(svc(b).store.conversations.get(conv.id)).toBeUndefined()
    expect(svc(c).store.conversations.get(conv.id)?.title).toBe('Short-lived')
    // C merges it; once each device has read C's record, each forgets it.
    await c.sync()
    expect(svc(c).store.conversations.get(conv.id)).toBeUndefined()
    await converge(list)
    for (const d of list) expect(tombstones(d)).toBe(0)
    // Nothing comes back: not on the three, not on a fresh device that reads it all from the start.
    const fresh = await openDevice('D')
    opened.push(fresh)
    await fresh.setup(store)
    await converge([...list, fresh])
    for (const d of [...list, fresh]) {
      expect(svc(d).store.conversations.get(conv.id)).toBeUndefined()
      expect(svc(d).store.messages.get(msg.id)).toBeUndefined()
    }
    expect(contents(fresh)).toEqual(contents(a))
  })

  it('a device gone for good can be forgotten: it no longer holds deletions, and if it comes back it is told to join again', async () => {
    const { list } = await devices(3)
    const [a, b, c] = list as [Device, Device, Device]
    const conv = svc(a).store.conversations.create({ agentId: agentOf(a), title: 'Short-lived' })
    svc(a).store.messages.create({ conversationId: conv.id, role: 'user', content: text('gone soon') })
    await converge(list)
    const tombstones = (d: Device) => (svc(d).store.db.sqlite.prepare('SELECT COUNT(*) AS n FROM sync_meta WHERE deleted IS NOT NULL').get() as { n: number }).n
    svc(a).store.conversations.delete(conv.id)
    // C is gone (a lost laptop): A and B keep the deletion for it.
    for (let i = 0; i < 2; i++) for (const d of [a, b]) await d.sync()
    expect(tombstones(a)).toBe(2)
    type Listed = Array<{ id: string; name: string; current: boolean }>
    const listed = (await a.call('sync.devices', {})) as Listed
    const self = listed.find((d) => d.current)!
    const gone = listed.find((d) => d.name === 'C')!
    // A device cannot forget itself (that is Disconnect).
    await expect(a.call('sync.forgetDevice', { deviceId: self.id })).rejects.toThrow(/Disconnect/)
    // Nor one the store does not list.
    await expect(a.call('sync.forgetDevice', { deviceId: 'nosuchdevice' })).rejects.toThrow(/ValidationError.*No device nosuchdevice/)
    const after = (await a.call('sync.forgetDevice', { deviceId: gone.id })) as Listed
    expect(after.map((d) => d.name).sort()).toEqual(['A', 'B'])
    // Once both have read that C is forgotten, neither keeps the deletion for it.
    for (let i = 0; i < 2; i++) for (const d of [a, b]) await d.sync()
    expect(tombstones(a)).toBe(0)
    expect(tombstones(b)).toBe(0)
    expect(((await b.call('sync.devices', {})) as Listed).map((d) => d.name).sort()).toEqual(['A', 'B'])
    // C comes back: told what happened and how to join again; nothing merged, nothing sent.
    const away = svc(c).store.conversations.create({ agentId: agentOf(c), title: 'Written while away' })
    const status = (await c.sync()) as { state: string; error?: { code: string; message: string } }
    expect(status.state).toBe('error')
    expect(status.error?.code).toBe('SyncDeviceForgotten')
    expect(status.error?.message).toMatch(/A/)
    expect(svc(c).store.conversations.get(conv.id)?.title).toBe('Short-lived')
    await a.sync()
    expect(svc(a).store.conversations.get(away.id)).toBeUndefined()
    // Joining again as a new device: the deletion reaches it, what it wrote away reaches the others.
    expect(await c.call('sync.rejoin', {})).toMatchObject({ state: 'idle' })
    await converge(list)
    expect(svc(c).store.conversations.get(conv.id)).toBeUndefined()
    expect(svc(a).store.conversations.get(away.id)?.title).toBe('Written while away')
    expect(contents(c)).toEqual(contents(a))
    const now = (await a.call('sync.devices', {})) as Listed
    expect(now.map((d) => d.name).sort()).toEqual(['A', 'B', 'C'])
    expect(now.find((d) => d.name === 'C')!.id).not.toBe(gone.id)
  })

  it('what a forgotten device left in the store goes at the next snapshot that covers it: its segments, its snapshots, its unfinished image', async () => {
    const { list, folder, store } = await devices(2, { compactAfter: 3 })
    const [a, b] = list as [Device, Device]
    // B writes a history and its own snapshot, then is lost (a stolen laptop) with an upload half done.
    const conv = svc(b).store.conversations.create({ agentId: agentOf(b), title: 'From the lost laptop' })
    for (let i = 0; i < 4; i++) {
      svc(b).store.messages.create({ conversationId: conv.id, role: 'user', content: text(`b${i}`) })
      await b.sync()
    }
    await converge(list)
    const lost = svc(b).sync.status().deviceId
    const objectsOf = (device: string) => [
      ...(existsSync(join(folder, 'segments', device)) ? readdirSync(join(folder, 'segments', device)) : []),
      ...readdirSync(join(folder, 'snapshots')).filter((n) => n.includes(`-${device}.`))
    ]
    expect(readdirSync(join(folder, 'snapshots')).some((n) => n.endsWith(`-${lost}.snap`))).toBe(true)
    writeFileSync(join(folder, 'snapshots', `9000000000000-${lost}.img.0000`), 'half an image')
    await b.close()
    await a.call('sync.forgetDevice', { deviceId: lost })
    for (let i = 0; i < 4; i++) {
      svc(a).store.messages.create({ conversationId: conv.id, role: 'user', content: text(`a${i}`) })
      await a.sync()
    }
    // Only its newest segment stays (as a device keeps its own newest); nothing else of it.
    expect(objectsOf(lost)).toHaveLength(1)
    expect(objectsOf(lost)[0]).toMatch(/\.seg$/)
    const c = await openDevice('C')
    opened.push(c)
    await c.setup(store)
    await c.sync()
    expect(svc(c).store.db.sqlite.prepare('SELECT text FROM messages WHERE conversation_id = ? ORDER BY text').pluck().all(conv.id)).toEqual(['a0', 'a1', 'a2', 'a3', 'b0', 'b1', 'b2', 'b3'])
    expect(contents(c)).toEqual(contents(a))
  })

  it('a forget marker that does not open (written by someone without the key) is not obeyed', async () => {
    const { list, folder } = await devices(2)
    const [a, b] = list as [Device, Device]
    await converge(list)
    type Listed = Array<{ id: string; name: string; current: boolean }>
    const bId = ((await b.call('sync.devices', {})) as Listed).find((d) => d.current)!.id
    mkdirSync(join(folder, 'forgotten'), { recursive: true })
    writeFileSync(join(folder, 'forgotten', `${bId}.json`), JSON.stringify({ id: bId, name: 'B', by: 'x', byName: 'Mallory', at: Date.now() }))
    expect(((await b.sync()) as { state: string }).state).toBe('idle')
    expect(((await a.call('sync.devices', {})) as Listed).map((d) => d.name).sort()).toEqual(['A', 'B'])
  })

  it('a device at rest writes its record only when it changed or grew old; one deleted or damaged is written again at the next round', async () => {
    const { list, folder } = await devices(2)
    const [a, b] = list as [Device, Device]
    await converge(list)
    type Listed = Array<{ id: string; name: string; current: boolean; lastSeenAt: number }>
    const aId = ((await a.call('sync.devices', {})) as Listed).find((d) => d.current)!.id
    const record = join(folder, 'devices', `${aId}.json`)
    const records = (puts: string[]) => puts.filter((k) => k.startsWith('devices/'))
    const puts: string[] = []
    a.fault.puts = puts
    // Nothing new: three rounds, no write; this device still lists itself as seen now.
    for (let i = 0; i < 3; i++) await a.sync()
    expect(puts).toEqual([])
    const before = Date.now()
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(((await a.call('sync.devices', {})) as Listed).find((d) => d.current)!.lastSeenAt).toBeGreaterThanOrEqual(before)
    // What it merged changed: written at once (the others forget deletions by it).
    svc(b).store.conversations.create({ agentId: agentOf(b), title: 'news for A' })
    await b.sync()
    await a.sync()
    expect(records(puts)).toEqual([`devices/${aId}.json`])
    // Older than the refresh: written again, and the others see the new last seen.
    puts.length = 0
    a.skew.ms += DEVICE_RECORD_REFRESH_MS + 1_000
    await a.sync()
    expect(records(puts)).toEqual([`devices/${aId}.json`])
    await b.sync()
    const seenOnB = ((await b.call('sync.devices', {})) as Listed).find((d) => d.id === aId)!.lastSeenAt
    expect(seenOnB).toBeGreaterThan(Date.now() + DEVICE_RECORD_REFRESH_MS)
    // Deleted by hand, or overwritten with garbage: written again at the next round.
    rmSync(record)
    await a.sync()
    expect(existsSync(record)).toBe(true)
    writeFileSync(record, 'not a record')
    const conv = svc(a).store.conversations.create({ agentId: agentOf(a), title: 'deleted later' })
    await converge(list)
    svc(a).store.conversations.delete(conv.id)
    writeFileSync(record, 'not a record')
    await converge(list)
    expect(readFileSync(record, 'utf8')).not.toBe('not a record')
    // Nor does the damage hold deletions back once written over: the tombstone is forgotten on both.
    await converge(list)
    for (const d of list) expect((svc(d).store.db.sqlite.prepare('SELECT COUNT(*) AS n FROM sync_meta WHERE deleted IS NOT NULL AND key = ?').get(conv.id) as { n: number }).n).toBe(0)
  })

  it('a tombstone that came in a snapshot is kept until every device has merged what the snapshot covers', async () => {
    const { list, store } = await devices(2, { compactAfter: 2 })
    const [a, b] = list as [Device, Device]
    const conv = svc(a).store.conversations.create({ agentId: agentOf(a), title: 'Deleted before C came' })
    await converge(list)
    svc(a).store.conversations.delete(conv.id)
    await a.sync()
    // A compacts: its segment with the deletion is gone; a new device learns of it from the snapshot.
    for (let i = 0; i < 3; i++) {
      svc(a).store.conversations.create({ agentId: agentOf(a), title: `filler ${i}` })
      await a.sync()
    }
    const c = await openDevice('C', { compactAfter: 2 })
    opened.push(c)
    await c.setup(store)
    await c.sync()
    const origin = svc(c).store.db.sqlite.prepare('SELECT gone_after FROM sync_meta WHERE key = ?').get(conv.id) as { gone_after: string | null } | undefined
    // C holds the tombstone with the snapshot's covers as where it was published (B has not merged all of them yet).
    const covers = JSON.parse(origin!.gone_after!) as Record<string, number>
    expect(covers[svc(a).sync.status().deviceId]).toBeGreaterThan(1)
    await converge([a, b, c])
    for (const d of [a, b, c]) expect(svc(d).store.conversations.get(conv.id)).toBeUndefined()
    const left = (d: Device) => (svc(d).store.db.sqlite.prepare('SELECT COUNT(*) AS n FROM sync_meta WHERE key = ?').get(conv.id) as { n: number }).n
    for (const d of [a, b, c]) expect(left(d)).toBe(0)
  })

  it('an image attachment travels once as an encrypted blob and lands in the other data folder', async () => {
    const { list, folder } = await devices(2)
    const [a, b] = list as [Device, Device]
    const bytes = Buffer.concat([Buffer.from('\x89PNG\r\n\x1a\n', 'binary'), Buffer.alloc(2048, 7)])
    const { file } = await svc(a).attachments.upload({ name: 'photo.png', mimeType: 'image/png', bytes })
    b.fault.gets = []
    await converge(list)
    const blobs = readdirSync(join(folder, 'blobs'))
    expect(blobs).toHaveLength(1)
    // One request for it: an image has no extracted text to ask for.
    expect(b.fault.gets.filter((key) => key.startsWith('blobs/'))).toEqual([`blobs/${blobs[0]}`])
    expect(readFileSync(join(folder, 'blobs', blobs[0]!)).includes(Buffer.alloc(64, 7))).toBe(false)
    expect(readFileSync(join(b.dataDir, file.path)).equals(bytes)).toBe(true)
    expect(svc(b).store.files.findBySha256(file.sha256)?.id).toBe(file.id)
    // A text attachment brings the text extracted from it, which is what the model is given.
    const note = await svc(a).attachments.upload({ name: 'notes.md', mimeType: 'text/markdown', bytes: Buffer.from('# Notes\n\nthe launch code is tulip') })
    await converge(list)
    expect(svc(b).attachments.context([note.file.id])).toEqual([expect.objectContaining({ name: 'notes.md', text: expect.stringContaining('tulip') })])
  })
})

