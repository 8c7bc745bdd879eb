/**
 * Pictures and files no row names any more leave the store (decision 110): a device that merged
 * everything marks each such blob, and deletes it once the grace period (seven days, the engine's
 * own: the devices' clocks are moved on) has passed with the mark still there. A device that
 * sends a row naming a marked blob removes the mark first, so the blob stays.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { SyncStoreConfig } from '../../../src/shared/bridge/procedures/sync'
import { openSyncStore } from '../../../src/core/sync/stores'
import type { SyncStore } from '../../../src/core/sync/store'
import { useStorePlaces } from './store-places'
import { openDevice, type Device } from './devices'

const all = useStorePlaces('sweep')
/** A new, empty store of each kind, and the secret it takes. */
const places = all

const HOUR = 3_600_000
const DAY = 24 * HOUR

const opened: Device[] = []
const raws: SyncStore[] = []
afterEach(async () => {
  for (const d of opened.splice(0)) await d.close().catch(() => undefined)
  for (const r of raws.splice(0)) await r.close().catch(() => undefined)
})
const svc = (d: Device) => d.core.services()
const device = async (name: string) => {
  const d = await openDevice(name, { timings: { debounceMs: 3_600_000 } })
  opened.push(d)
  return d
}
type Place = { config: SyncStoreConfig; secret?: string }
const setUp = (d: Device, { config, secret }: Place) => d.call('sync.setup', { store: config, ...(secret ? { secret } : {}), passphrase: 'correct horse battery', deviceName: d.name })
const rawStore = async ({ config, secret }: Place) => {
  const raw = await openSyncStore(config, secret)
  raws.push(raw)
  return raw
}

/** A small picture, different for each n, all of one size. */
const picture = (n: number) => Buffer.concat([Buffer.from('\x89PNG\r\n\x1a\n', 'binary'), Buffer.from(String(n).padStart(8, '0')), Buffer.alloc(240, n % 251)])
const bytesUnder = async (store: SyncStore, prefix: string) => (await store.list(prefix)).reduce((n, o) => n + o.size, 0)

// 1,000 through the folder; 100 through the servers, which take a request per blob.
describe.each([['folder', 1000], ['s3', 100], ['webdav', 100], ['postgres', 100]] as const)('blob sweep through %s', (kind, pictures) => {
  it(`half of ${pictures.toLocaleString('en')} pictures deleted: after the grace period the store holds what is left, within 10 %, and a new device opens every picture kept`, { timeout: 120_000 }, async () => {
    const place = await places[kind]()
    const a = await device('A')
    await setUp(a, place)
    const files = []
    for (let n = 0; n < pictures; n++) files.push((await svc(a).attachments.upload({ name: `p${n}.png`, mimeType: 'image/png', bytes: picture(n) })).file)
    expect((await a.sync()).error).toBeUndefined()
    const raw = await rawStore(place)
    const blobs = await raw.list('blobs/')
    expect(blobs).toHaveLength(pictures)
    // Every picture is one size, so each sealed blob is too: what is left is half of them.
    const each = blobs[0]!.size
    expect(blobs.every((b) => b.size === each)).toBe(true)

    const [gone, kept] = [files.filter((_, n) => n % 2 === 0), files.filter((_, n) => n % 2 === 1)]
    for (const f of gone) svc(a).store.files.delete(f.id)
    // The next sweep (an hour on) marks them; a week later they go.
    a.skew.ms += 2 * HOUR
    expect((await a.sync()).error).toBeUndefined()
    expect(await raw.list('blobs/')).toHaveLength(pictures)
    a.skew.ms += 8 * DAY
    expect((await a.sync()).error).toBeUndefined()

    const left = (pictures / 2) * each
    const size = (await bytesUnder(raw, 'blobs/')) + (await bytesUnder(raw, 'sweep/'))
    expect(Math.abs(size - left) / left, `the store holds ${size} bytes of pictures and marks; what is left is ${left}`).toBeLessThanOrEqual(0.1)

    const c = await device('C')
    c.skew.ms = a.skew.ms
    await setUp(c, place)
    expect((await c.sync()).error).toBeUndefined()
    for (const f of kept) expect(readFileSync(join(c.dataDir, f.path)).equals(picture(files.indexOf(f))), `${f.name} on the new device`).toBe(true)
    for (const f of gone) expect(svc(c).store.files.get(f.id)).toBeUndefined()
  })

  it('a device that re-uses a blob another marked keeps it: after that one sweeps, the file still opens on a third device', { timeout: 60_000 }, async () => {
    const place = await places[kind]()
    const a = await device('A')
    await setUp(a, place)
    const bytes = picture(7)
    const first = (await svc(a).attachments.upload({ name: 'photo.png', mimeType: 'image/png', bytes })).file
    await a.sync()
    svc(a).store.files.delete(first.id)
    await a.sync()
    // A marks the blob no row names now.
    a.skew.ms += 2 * HOUR
    await a.sync()
    const raw = await rawStore(place)
    expect(await raw.list('sweep/')).toHaveLength(1)

    // A week on, B joins (its first round sweeps too: the mark is A's, so it leaves it). A's next
    // round lists the store; while it writes its record, B attaches the same picture and sends it,
    // so B's segment comes after A's listing and A has not merged it when it sweeps.
    a.skew.ms += 8 * DAY
    const b = await device('B')
    b.skew.ms = a.skew.ms
    await setUp(b, place)
    expect((await b.sync()).error).toBeUndefined()
    let again: { id: string; path: string } | undefined
    a.fault.putWaits = (key) => {
      if (!key.startsWith('devices/')) return undefined
      a.fault.putWaits = undefined
      return (async () => {
        again = (await svc(b).attachments.upload({ name: 'photo again.png', mimeType: 'image/png', bytes })).file
        expect((await b.sync()).error).toBeUndefined()
      })()
    }
    expect((await a.sync()).error).toBeUndefined()
    expect(again).toBeDefined()
    expect(await raw.list('blobs/')).toHaveLength(1)
    // And A's sweeps after it, having merged B's row, leave it too.
    for (let n = 0; n < 2; n++) {
      a.skew.ms += 8 * DAY
      await a.sync()
    }

    const c = await device('C')
    c.skew.ms = a.skew.ms
    await setUp(c, place)
    expect((await c.sync()).error).toBeUndefined()
    expect(readFileSync(join(c.dataDir, again!.path)).equals(bytes)).toBe(true)
    expect(await raw.list('sweep/')).toHaveLength(0)
  })
})
