/**
 * Sync through each real store, not only a folder: the shared store contract, then two data
 * folders (two devices) that edit offline, delete against add, and converge — through s3rver,
 * `rclone serve webdav` and a fresh PostgreSQL cluster, all on loopback (tests/support/sync-servers.ts).
 * PostgreSQL pushes (LISTEN/NOTIFY): there a change reaches the other device with no poll at all.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { SyncStoreConfig } from '../../../src/shared/bridge/procedures/sync'
import { openSyncStore } from '../../../src/core/sync/stores'
import { startPostgres, startS3Server, startWebdavServer, type PostgresServer, type S3Server, type WebdavServer } from '../../support/sync-servers'
import { contents, openDevice, text, type Device } from './devices'
import { describeSyncStoreContract } from './store-contract'

let s3: S3Server
let dav: WebdavServer
let pgServer: PostgresServer
let fresh = 0

beforeAll(async () => {
  ;[s3, dav, pgServer] = await Promise.all([startS3Server(), startWebdavServer(), startPostgres()])
}, 90_000)
afterAll(async () => {
  await Promise.all([s3?.stop(), dav?.stop(), pgServer?.stop()])
})

/** An empty place in each store, with its secret, as a user would configure it. */
const places: Record<'s3' | 'webdav' | 'postgres', () => Promise<{ config: SyncStoreConfig; secret: string }>> = {
  s3: async () => ({
    config: { kind: 's3', endpoint: s3.endpoint, region: s3.region, bucket: s3.bucket, prefix: `place-${++fresh}`, accessKeyId: s3.accessKeyId, forcePathStyle: true },
    secret: s3.secretAccessKey
  }),
  webdav: async () => {
    // Made over WebDAV as a user's client would (rclone's directory cache does not see folders made on its disk).
    const folder = `place-${++fresh}`
    const made = await fetch(`${dav.url}${folder}/`, { method: 'MKCOL', headers: { authorization: `Basic ${Buffer.from(`${dav.username}:${dav.password}`).toString('base64')}` } })
    if (made.status !== 201) throw new Error(`MKCOL ${folder}: ${made.status}`)
    return { config: { kind: 'webdav', url: `${dav.url}${folder}/`, username: dav.username }, secret: dav.password }
  },
  postgres: async () => {
    const schema = `place_${++fresh}`
    await pgServer.admin(`CREATE SCHEMA ${schema} AUTHORIZATION ${pgServer.user}`)
    return { config: { kind: 'postgres', host: pgServer.host, port: pgServer.port, database: pgServer.database, user: pgServer.user, schema }, secret: pgServer.password }
  }
}

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

async function converge(list: readonly Device[]) {
  for (let i = 0; i < 2; i++) for (const d of list) await d.sync()
}

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
