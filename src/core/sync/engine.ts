import { createHash, randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, normalize, sep } from 'node:path'
import type { SyncDevice, SyncScope } from '../../shared/bridge/procedures/sync'
import type { StoreDb } from '../store/database'
import { ChangeLog, type Change, type MergeResult, type Origin } from './change-log'
import type { ApiKeySync } from './api-keys'
import { blobName, IMAGE_FORMAT, open, seal, TamperedObject, type ObjectHeader } from './crypto'
import type { HybridClock } from './hlc'
import { adoptImage, chunksOf, ImageFile, imageChanges, writeImage, type ImageInfo } from './image'
import { RefusedObject, SyncStoreError, type SyncStore } from './store'
import { SYNCED_TABLES } from './tables'
import { fileKind } from '../files/file-kind'

export const SEGMENT_CHANGES = 5000
/** A segment holds fewer changes when they would come to more than this (long messages): every device reads objects up to `MAX_OBJECT_BYTES` only. */
export const SEGMENT_BYTES = 64 * 1024 * 1024
/**
 * Segments (all devices) after the newest snapshot before a device writes a new one, once they
 * also come to COMPACT_SHARE of that snapshot's bytes. A snapshot is the whole history again
 * (117 MB at 100,000 messages): written after every 64 small segments, a person chatting against
 * a long history uploaded it every half hour or so, and a program carrying the folder copied it
 * to every device each time.
 */
export const COMPACT_AFTER = 64
/** The share of the newest snapshot's bytes the segments after it must come to (with COMPACT_AFTER) before it is written again. */
export const COMPACT_SHARE = 1 / 8
/**
 * Segments after the newest snapshot at which one is written whatever their bytes. Every round
 * lists them all (an S3 listing entry is ~250 bytes, and a polled store is listed every 15–60 s
 * for as long as the app runs), and a new device reads each one after the snapshot.
 */
export const COMPACT_MAX_SEGMENTS = 256
/** Bytes of segments after the newest snapshot before a device writes one: a large history is read by a new device from one image, not record by record. */
export const COMPACT_BYTES = 32 * 1024 * 1024
/**
 * Changes waiting to be sent from which they go out as a snapshot instead of segments (when they
 * are also at least half of what this device holds): a first push of a long history, a large import.
 */
export const SNAPSHOT_BACKLOG = 4 * SEGMENT_CHANGES
/**
 * How old this device's record may grow before a round writes it again with nothing else changed:
 * its last seen is then at most this stale on the others. Rewritten every round, it would be a
 * write per device every 15–60 s for as long as the app runs: a file a program carrying the folder
 * uploads to every device, a version Nextcloud keeps, a billed request on S3.
 */
export const DEVICE_RECORD_REFRESH_MS = 5 * 60_000
/**
 * How long a blob no row names stays marked before its marker deletes it: longer than a device
 * may stay offline holding a row that names it (it re-uploads the blob and removes the mark when it
 * sends that row, but only if the mark is still there to find).
 */
export const BLOB_GRACE_MS = 7 * 24 * 3_600_000
/** How often a device looks for blobs no row names (it lists every blob and mark then). */
export const SWEEP_EVERY_MS = 3_600_000
/** A sweep mark: `sweep/<blob name>.json`, beside nothing else (a blob's key is `blobs/<name>`). */
export const markKey = (blob: string) => `sweep/${blob.slice('blobs/'.length)}.json`
const blobOfMark = (mark: string) => `blobs/${mark.slice('sweep/'.length, -'.json'.length)}`

const pad = (seq: number) => String(seq).padStart(12, '0')
export const segmentKey = (device: string, seq: number) => `segments/${device}/${pad(seq)}.seg`
/** The number of a segment from its key (0 when it is not one). */
export const segmentSeq = (key: string) => Number(/(\d+)\.seg$/.exec(key)?.[1] ?? 0)
export const deviceKey = (device: string) => `devices/${device}.json`
/**
 * Whether a write another device told of (PostgreSQL's notifications) is news a round should
 * fetch now: a segment or a snapshot, a key file, a device forgotten. Not a device record (nothing
 * in it is merged, and a round that merged something writes its own: woken by those, two devices
 * would wake each other for ever), nor a blob or an image chunk (the segment or snapshot naming it
 * is written after it), nor this device's own segments.
 */
export const isNews = (key: string, device: string) =>
  !key.startsWith('devices/') && !key.startsWith('blobs/') && !key.startsWith(`segments/${device}/`) && !(key.startsWith('snapshots/') && !key.endsWith('.snap'))
/** Written by the device that forgot another: a device only ever writes its own objects and these. */
const forgottenKey = (device: string) => `forgotten/${device}.json`
const idOf = (key: string) => /\/([A-Za-z0-9_-]+)\.json$/.exec(key)?.[1]

/** The fields of a files row that say which blobs it names. */
interface FileRowFields {
  path?: string
  sha256?: string
  size?: number
  name?: string
  mime_type?: string
}
interface SegmentBody {
  changes: Change[]
}
interface SnapshotBody {
  covers: Record<string, number>
  /**
   * The kinds its writer took (absent: a snapshot from before this was written, which took
   * everything). A device that takes a kind it does not hold trusts its covers only for its writer.
   */
  holds?: SyncScope
  changes: Change[]
  /** The messages, as a database image in chunks beside the snapshot (image.ts); absent: they are in `changes`. */
  image?: ImageInfo
}
/** The device that wrote a snapshot (`snapshots/<time>-<device>.snap`). */
const writerOf = (snapshot: string) => /-([A-Za-z0-9_-]+)\.snap$/.exec(snapshot)?.[1]
/** The chunks of a snapshot's image: `snapshots/<id>.img.<n>` beside `snapshots/<id>.snap`. */
const imageChunks = (snapshot: string) => `${snapshot.replace(/\.snap$/, '')}.img.`
const imageChunkKey = (snapshot: string, n: number) => `${imageChunks(snapshot)}${String(n).padStart(4, '0')}`
/** A sealed object's GCM tag (its last 16 bytes), as a snapshot lists its image's chunks. */
const tagOf = (sealed: Uint8Array) => Buffer.from(sealed.buffer, sealed.byteOffset + sealed.byteLength - 16, 16).toString('base64')
/** Image chunks fetched ahead (each up to IMAGE_CHUNK bytes in memory). */
const IMAGE_PREFETCH = 3
/**
 * Another device's segments fetched ahead while one is merged: a device catching up reads up to
 * COMPACT_MAX_SEGMENTS of them, one request each, and over a real link each waits tens of ms.
 * At most SEGMENT_PREFETCH_BYTES of them in memory beyond the one being merged.
 */
const SEGMENT_PREFETCH = 8
const SEGMENT_PREFETCH_BYTES = 16 * 1024 * 1024
/** Attachments and images fetched ahead while one is written to the data folder (by their rows' sizes, at most 64 MB beyond it). */
const BLOB_PREFETCH = 6
const BLOB_PREFETCH_BYTES = 64 * 1024 * 1024
/** Where an image is built or downloaded: a file of the data folder, swept at start if a run stopped half way. */
const IMAGE_FILE = /^sync-image-[0-9a-f]+\.db$/
const imageFile = (dataDir: string) => join(dataDir, `sync-image-${randomBytes(6).toString('hex')}.db`)
/** Whether two records say the same of what their device merged. */
function sameSeen(a: Record<string, number>, b: Record<string, number>): boolean {
  const keys = Object.keys(a)
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k])
}
const noMerge = (): MergeResult => ({ applied: 0, conflicts: 0, recovered: 0, parked: 0 })
/** Adds one merge's counts to a running total (`parked` is what waits now, not a sum). */
function addMerge(total: MergeResult, m: MergeResult): void {
  total.applied += m.applied
  total.conflicts += m.conflicts
  total.recovered += m.recovered
  total.parked = m.parked
}
/** A blob one device found no row naming, and when: deleted by that device once BLOB_GRACE_MS has passed, unless the mark is gone. */
interface MarkBody {
  blob: string
  by: string
  at: number
}
interface DeviceBody {
  id: string
  name: string
  lastSeenAt: number
  seen: Record<string, number>
  /** Other devices' segments this one refused (they did not open): their writers send what was in them again. */
  refused?: string[]
  /** This device's own segments the store lost or another device refused, whose content it has sent again since. */
  healed?: number[]
}

/** A segment a device read past because it is not in the store, and its writer has not sent its content again yet. */
export interface MissingObject {
  key: string
  /** How many segments are missing there, from `key` on. */
  count: number
  device: string
  deviceName: string
  /** When this device first met the gap. */
  since: number
}
interface ForgottenBody {
  id: string
  name: string
  /** The device that forgot it, and when. */
  by: string
  byName: string
  at: number
}

/** This device was forgotten by another: it must set sync up again (a new device) before it merges or sends anything. */
export class DeviceForgotten extends Error {
  constructor(readonly by: string, readonly at: number) {
    super(`${by} removed this device from sync on ${new Date(at).toISOString().slice(0, 10)}; nothing was merged or sent.`)
    this.name = 'DeviceForgotten'
  }
}

export interface RoundResult {
  pushed: number
  merge: MergeResult
  /** Objects refused by their integrity check (named), never merged. */
  tampered: string[]
  /** Gaps in other devices' segments that this round read past (what follows them was merged). */
  missing: MissingObject[]
  /** This device's own records sent again this round: the store lost or another device refused a segment (or a blob) of it. */
  resent: number
  /** Objects refused here before that opened this round (a blob written again by a device that has it): no longer named. */
  fixed?: string[]
  devices: SyncDevice[]
  /** Tombstones forgotten this round: every device had seen them. */
  collected: number
  /** The folders this round listed whole (`segments/`, `snapshots/`), with the keys they held then. */
  listed: { folders: string[]; keys: Set<string> }
}

export interface EngineDeps {
  db: StoreDb
  store: SyncStore
  key: Buffer
  deviceId: string
  deviceName: string
  clock: HybridClock
  scope: SyncScope
  dataDir: string
  /** Told how many changes the running round carries ("syncing n changes"). */
  progress?: (changes: number) => void
  /** Told how far a long download (a snapshot's image) has come, in bytes: at its start and after each chunk. */
  transfer?: (done: number, total: number) => void
  /** Segments after the newest snapshot before this device writes one (COMPACT_AFTER). */
  compactAfter?: number
  /** Bytes of segments after the newest snapshot before this device writes one (COMPACT_BYTES). */
  compactBytes?: number
  /** COMPACT_SHARE (tests that count segments set 0). */
  compactShare?: number
  /** COMPACT_MAX_SEGMENTS (tests lower it). */
  compactMaxSegments?: number
  /** Bytes of a snapshot image's chunk (IMAGE_CHUNK; tests lower it). */
  imageChunk?: number
  /** Bytes past which a segment holds fewer changes (SEGMENT_BYTES; tests lower it). */
  segmentBytes?: number
  /** Changes waiting from which they are sent as a snapshot (SNAPSHOT_BACKLOG; tests lower it). */
  snapshotBacklog?: number
  /** How long a blob no row names stays marked before it is deleted (BLOB_GRACE_MS; tests lower it). */
  blobGraceMs?: number
  /** How often a device sweeps blobs (SWEEP_EVERY_MS; tests lower it). */
  sweepEveryMs?: number
  /** Told which tables another device's changes touched (caches to drop). */
  applied?: (tables: Set<string>) => void
  /** Present when the user turned API keys on. */
  apiKeys?: ApiKeySync
}

/** The devices as listed: this one is seen now (its record in the store is rewritten only every few minutes at rest). */
const toDevices = (bodies: DeviceBody[], current: string, now: number): SyncDevice[] =>
  bodies.map((b) => ({ id: b.id, name: b.name, lastSeenAt: b.id === current ? Math.max(b.lastSeenAt, now) : b.lastSeenAt, current: b.id === current })).sort((a, b) => b.lastSeenAt - a.lastSeenAt)

const json = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8')
const parse = <T>(bytes: Buffer): T => JSON.parse(bytes.toString('utf8')) as T

/**
 * One round of sync between this data folder and the store: stamp local changes, write them as
 * the next numbered segment of this device (blobs first), read every other device's new
 * segments (from a snapshot when this device is new or has fallen behind a compaction), merge,
 * and record this device in the registry.
 */
export class SyncEngine {
  readonly log: ChangeLog

  /** What each snapshot read so far covers, by key (it never changes); null for one that does not open. */
  private readonly covers = new Map<string, Record<string, number> | null>()
  /** Compaction was due at the last round, which sent nothing and so left it to the device whose segment made it due (or this device's attempt failed). */
  private dueUnsent = false
  /**
   * Other devices' segments refused here, told in this device's record (seeded from the record in
   * the store); and blobs a row here names that this device could not get (refused or missing).
   */
  private readonly refusedSegments = new Set<string>()
  /** Own segments whose content was sent again, told in this device's record (seeded likewise). */
  private readonly healed = new Set<number>()
  /** When each gap was first met here, by the key of its first missing segment. */
  private readonly gapsSince = new Map<string, number>()
  /** Segments after a gap merged already by this process: not fetched again while the gap stays. */
  private readonly mergedPastGap = new Set<string>()
  /** A snapshot of this device's was written this round: its own segments the old one did not cover may be gone by right. */
  private wroteSnapshot = false
  /** When this process last swept blobs (it sweeps at its first round that merged everything). */
  private sweptAt = -Infinity
  /** Sweep marks read, by key (a mark is created once and never written again). */
  private readonly marks = new Map<string, MarkBody | null>()
  /**
   * Blobs a row here names that could not be fetched: missing from the store, or refused (a
   * refused one is also in `refusedSegments`, so its writer reads of it in this device's record).
   * With when first met and the device whose record named it; fetched again by `keepBlobs`.
   */
  private readonly unfetched = new Map<string, { since: number; device: string; refused: boolean }>()
  /** Other devices' refusals of a blob this process wrote again (`<device> <blob>`): each is answered once. */
  private readonly rewritten = new Set<string>()
  /** When this process last checked the blobs its rows name against the store (`keepBlobs`). */
  private keptAt = -Infinity

  constructor(private readonly deps: EngineDeps) {
    this.log = new ChangeLog(deps.db, deps.clock)
    // Image files of an earlier run that stopped half way (they are rebuilt or downloaded again).
    try {
      for (const name of readdirSync(deps.dataDir)) if (IMAGE_FILE.test(name)) rmSync(join(deps.dataDir, name), { force: true })
    } catch {
      // No data folder yet: nothing to sweep.
    }
  }

  private nextSeq(): number {
    return this.deps.db.first(this.deps.db.q.selectFrom('sync_control').select('next_seq').where('id', '=', 1))!.next_seq
  }

  private setNextSeq(seq: number): void {
    this.deps.db.runUnwatched(this.deps.db.q.updateTable('sync_control').set({ next_seq: seq }).where('id', '=', 1))
  }

  private seal(kind: ObjectHeader['kind'], key: string, seq: number, body: Uint8Array, format?: number): Buffer {
    return seal(this.deps.key, { kind, device: this.deps.deviceId, seq, key }, body, format)
  }

  /** An object of the store. One the store would not read as sync's (too large, a link) is refused like a tampered one. */
  private async get(key: string): Promise<Uint8Array | undefined> {
    try {
      return await this.deps.store.get(key)
    } catch (error) {
      if (error instanceof RefusedObject) throw new TamperedObject(key, false)
      throw error
    }
  }

  async round(): Promise<RoundResult> {
    const { store, deviceId } = this.deps
    const merge = noMerge()
    const tampered: string[] = []
    const add = (m: MergeResult) => addMerge(merge, m)
    // Forgotten by another device: the others no longer keep deletions for it, so it must not merge or send.
    const forgotten = await this.forgotten()
    const me = forgotten.get(deviceId)
    if (me) throw new DeviceForgotten(me.byName, me.at)
    await this.deps.apiKeys?.stamp()
    await this.log.stampInSteps()
    this.wroteSnapshot = false
    const listed = await store.list('segments/')
    const byDevice = new Map<string, Array<{ seq: number; key: string; size: number }>>()
    for (const { key, size } of listed) {
      const m = /^segments\/([A-Za-z0-9_-]+)\/(\d+)\.seg$/.exec(key)
      if (!m) continue
      const list = byDevice.get(m[1]!) ?? []
      list.push({ seq: Number(m[2]), key, size })
      byDevice.set(m[1]!, list)
    }
    for (const list of byDevice.values()) list.sort((a, b) => a.seq - b.seq)
    // Every device's record: what each refused and sent again is read before the segments are.
    const records = await this.records(forgotten)
    this.seedFromRecord(records.bodies)
    const missing: MissingObject[] = []

    // A segment of ours the store holds beyond what we recorded: a put whose answer was lost, or
    // one written after the backup this data was restored from. Its changes are merged (nothing
    // for the first: the records hold those stamps; for the second, what the restore took back)
    // and count as sent.
    for (const { seq, key } of byDevice.get(deviceId) ?? []) {
      if (seq < this.nextSeq()) continue
      if (seq > this.nextSeq()) break
      let changes: Change[]
      try {
        const bytes = await this.get(key)
        if (!bytes) break
        changes = parse<SegmentBody>(open(this.deps.key, key, bytes).plaintext).changes
      } catch (error) {
        if (!(error instanceof TamperedObject)) throw error
        // Half written (this device killed mid-upload): written again below under the same number.
        if (error.truncated) break
        // Not this device's: put there by someone without the key. The other devices refuse it by
        // name and read on after it; written over, the segment they passed over would be lost to
        // them. So it stays, and this device writes on after it.
        this.setNextSeq(seq + 1)
        continue
      }
      await this.fetchBlobs(changes, tampered)
      add(await this.apply(changes, { [deviceId]: seq }))
      this.log.sent(changes, { [deviceId]: seq })
      this.setNextSeq(seq + 1)
    }
    this.skipNumbersRead(records.bodies)

    // Pull first: what others wrote is merged before ours is sent, so a conflict is settled here once.
    const seen = this.log.seen()
    const snapshotObjects = await store.list('snapshots/')
    const snapshots = snapshotObjects.filter((s) => s.key.endsWith('.snap')).sort((a, b) => (a.key < b.key ? -1 : 1))
    // A refused snapshot gone from the store (its writer wrote another and pruned it) is no longer told.
    const snapshotKeys = new Set(snapshotObjects.map((o) => o.key))
    for (const key of [...this.refusedSegments]) if (key.startsWith('snapshots/') && !snapshotKeys.has(key)) this.refusedSegments.delete(key)
    const newest = await this.newestReadable(snapshots, tampered)
    // Behind a device whose segments were compacted away, where the newest snapshot covers them.
    // Only there: a gap it does not cover (a device's own snapshot covers its own, below; a segment
    // planted under an id no device has, numbered past one, nothing does) would have the snapshot
    // read and merged again every round.
    const behind = [...byDevice].some(([device, list]) => device !== deviceId && list.length > 0 && list[0]!.seq > (seen.get(device) ?? 0) + 1 && (newest?.covers[device] ?? 0) >= list[0]!.seq - 1)
    // A device new to the store starts from the newest snapshot someone else wrote.
    const fresh = seen.size === 0 && newest !== undefined && !newest.key.endsWith(`-${deviceId}.snap`)
    if (newest && (behind || fresh)) await this.mergeSnapshot(newest.key, add, tampered)
    // Still behind a device (its first segment after a gap): the newest snapshot did not cover what
    // it compacted away — written earlier, or named by a clock running ahead. That device's own
    // newest snapshot covers every segment it deleted.
    for (const [device, list] of byDevice) {
      if (device === deviceId || list.length === 0 || list[0]!.seq <= (this.log.seen().get(device) ?? 0) + 1) continue
      const own = snapshots.filter((s) => s.key.endsWith(`-${device}.snap`)).pop()
      if (own && own.key !== newest?.key && ((await this.coversOf(own.key, tampered))?.[device] ?? 0) >= list[0]!.seq - 1) await this.mergeSnapshot(own.key, add, tampered)
    }
    for (const [device, list] of byDevice) {
      if (device === deviceId) continue
      const unread = list.filter((s) => s.seq > (this.log.seen().get(device) ?? 0) && !this.mergedPastGap.has(s.key))
      const fetched = this.fetchAhead(unread, SEGMENT_PREFETCH, SEGMENT_PREFETCH_BYTES)
      const healed = new Set(records.bodies.find((b) => b.id === device)?.healed ?? [])
      /** Past a gap not healed yet: what follows is merged, `seen` stays before the gap. */
      let pastGap = false
      for (const [i, { seq, key }] of unread.entries()) {
        const done = this.log.seen().get(device) ?? 0
        if (seq <= done) continue
        if (!pastGap && seq > done + 1) {
          // The segments before this one were compacted away and a snapshot covers them that was
          // not merged (half written, gone since the listing): merging on would mark them seen and
          // lose them; the next round tries the snapshot again.
          if (await this.snapshotCovers(device, seq - 1, newest, snapshots, tampered)) break
          const gap = Array.from({ length: seq - done - 1 }, (_, n) => done + 1 + n)
          if (gap.every((n) => healed.has(n))) {
            // Their writer sent what they held again, in segments after them.
            this.log.setSeen(device, seq - 1)
          } else {
            // Lost (deleted by hand, dropped by the store) and not sent again yet: what follows is
            // merged (states merge in any order), and the gap is named until its writer heals it.
            const first = segmentKey(device, done + 1)
            if (!this.gapsSince.has(first)) this.gapsSince.set(first, this.deps.clock.now())
            missing.push({ key: first, count: gap.length, device, deviceName: records.bodies.find((b) => b.id === device)?.name ?? device, since: this.gapsSince.get(first)! })
            pastGap = true
          }
        }
        let body: SegmentBody
        try {
          const bytes = await fetched(i)
          if (!bytes) break
          const opened = open(this.deps.key, key, bytes)
          if (opened.header.device !== device || opened.header.seq !== seq || opened.header.kind !== 'segment') throw new TamperedObject(key, false)
          body = parse<SegmentBody>(opened.plaintext)
        } catch (error) {
          if (!(error instanceof TamperedObject)) throw error
          // Half a segment from a device killed mid-upload: it writes it again; wait for it.
          if (error.truncated) break
          tampered.push(key)
          // Told in this device's record: its writer sends what it held again.
          this.refusedSegments.add(key)
          if (!pastGap) this.log.setSeen(device, seq)
          continue
        }
        this.deps.progress?.(body.changes.length)
        await this.fetchBlobs(body.changes, tampered)
        add(await this.apply(body.changes, { [device]: seq }))
        if (pastGap) this.mergedPastGap.add(key)
        else this.log.setSeen(device, seq)
      }
    }
    // Gaps met before and still there are named again (the segments after them were not read again).
    for (const [first, since] of this.gapsSince) {
      if (missing.some((m) => m.key === first)) continue
      const device = /^segments\/([A-Za-z0-9_-]+)\//.exec(first)?.[1] ?? ''
      const seq = segmentSeq(first)
      const healed = new Set(records.bodies.find((b) => b.id === device)?.healed ?? [])
      const done = this.log.seen().get(device) ?? 0
      if (done >= seq || healed.has(seq) || listed.some((o) => o.key === first)) {
        this.gapsSince.delete(first)
        continue
      }
      missing.push({ key: first, count: 1, device, deviceName: records.bodies.find((b) => b.id === device)?.name ?? device, since })
    }

    // Push. A long backlog goes out as one snapshot; what remains (API keys, anything newer) as segments.
    let pushed = 0
    const backlog = this.log.backlog(this.deps.scope)
    const long = this.owesSnapshot(byDevice) || this.longBacklog(backlog)
    // Devices forgotten, with their segments as listed (they write no more): what a snapshot of ours may remove.
    const gone = new Map([...forgotten.keys()].map((device) => [device, (byDevice.get(device) ?? []).map((s) => s.seq)]))
    if (long) pushed += await this.pushAsSnapshot(backlog.pending, snapshots, snapshotObjects, gone)
    pushed += await this.pushSegments(byDevice)
    // Self-healing: own segments the store lost or another device refused are sent again, in new segments.
    let resent = await this.heal(byDevice, snapshots, records.bodies, tampered)
    if (resent) pushed += await this.pushSegments(byDevice)
    // Blobs likewise: written again where the store lost or another device refused one, fetched again here.
    const blobs = await this.keepBlobs(records.bodies, tampered)
    resent += blobs.written
    missing.push(...blobs.missing.map((m) => ({ ...m, deviceName: records.bodies.find((b) => b.id === m.device)?.name ?? m.device })))

    const registered = await this.register(records)
    // A record that does not open might be a device that has not seen a deletion yet: keep them all then.
    const collected = registered.unreadable ? 0 : this.log.collect(registered.bodies)
    // Blobs no row names go only after a round that merged every segment listed (nothing refused, no gap).
    const mergedAll = [...byDevice].every(([device, list]) => device === deviceId || list.length === 0 || list[list.length - 1]!.seq <= (this.log.seen().get(device) ?? 0))
    if (this.takesEverything() && mergedAll && tampered.length === 0 && missing.length === 0) await this.sweep(new Set(listed.map((o) => o.key)))
    // A snapshot written above is this round's.
    if (!long) await this.compact(byDevice, newest, snapshots, snapshotObjects, pushed > 0, gone, this.snapshotRefusals(records.bodies, snapshotObjects))
    // What the store would not touch (a planted link) is named, and stays named while it is there.
    const links = store.takeRefused?.() ?? []
    tampered.push(...links)
    const present = new Set([...[...listed, ...snapshotObjects].map((o) => o.key), ...links])
    return { pushed, merge, tampered, missing, resent, ...(blobs.fixed.length ? { fixed: blobs.fixed } : {}), devices: toDevices(registered.bodies, deviceId, this.deps.clock.now()), collected, listed: { folders: ['segments/', 'snapshots/'], keys: present } }
  }

  /** The stamped changes (API keys first) as this device's next segments, blobs first. */
  private async pushSegments(byDevice: Map<string, Array<{ seq: number; key: string; size: number }>>): Promise<number> {
    const { store, deviceId } = this.deps
    let pushed = 0
    await this.deps.apiKeys?.stamp()
    let keys = (await this.deps.apiKeys?.outgoing()) ?? []
    let fits = SEGMENT_CHANGES
    for (;;) {
      this.log.stamp()
      const changes = [...keys, ...this.log.outgoing(this.deps.scope, Math.max(0, fits - keys.length))]
      if (changes.length === 0) break
      const body = json({ changes } satisfies SegmentBody)
      // Long messages: half as many, until the segment is small enough for every device to read.
      if (body.byteLength > (this.deps.segmentBytes ?? SEGMENT_BYTES) && changes.length > 1) {
        fits = Math.ceil(changes.length / 2)
        continue
      }
      fits = SEGMENT_CHANGES
      keys = []
      this.deps.progress?.(changes.length)
      await this.putBlobs(changes)
      const seq = this.nextSeq()
      const key = segmentKey(deviceId, seq)
      const sealed = this.seal('segment', key, seq, body)
      await store.put(key, sealed)
      this.log.sent(changes, { [deviceId]: seq })
      // Counted for compaction this round: a first push of a long history is followed by its snapshot at once.
      byDevice.set(deviceId, [...(byDevice.get(deviceId) ?? []), { seq, key, size: sealed.length }])
      this.setNextSeq(seq + 1)
      pushed += changes.length
    }
    return pushed
  }

  /**
   * This device's own segments that should be in the store and are not — after what its newest
   * snapshot covers (it removed those itself), before its newest segment (a missing newest one is
   * a snapshot owed) — or that another device's record says it refused: everything this device
   * changed itself is marked to be sent again (it cannot know which records the lost one held;
   * states merge, so what a device has already is no change there). Each loss is healed once; the
   * record says which, and a device that read past the gap then counts it as covered.
   */
  private async heal(byDevice: Map<string, Array<{ seq: number }>>, snapshots: Array<{ key: string }>, bodies: DeviceBody[], tampered: string[]): Promise<number> {
    const { deviceId } = this.deps
    const last = this.nextSeq() - 1
    if (this.wroteSnapshot || last <= 1) return 0
    const own = new Set((byDevice.get(deviceId) ?? []).map((s) => s.seq))
    const mine = snapshots.filter((s) => s.key.endsWith(`-${deviceId}.snap`)).pop()
    // A snapshot of ours that is half written or gone since the listing: not the moment to judge.
    const covers = mine ? await this.coversOf(mine.key, tampered) : null
    if (covers === undefined) return 0
    const floor = covers?.[deviceId] ?? 0
    const lost: number[] = []
    for (let seq = floor + 1; seq < last; seq++) if (!own.has(seq) && !this.healed.has(seq)) lost.push(seq)
    const prefix = `segments/${deviceId}/`
    for (const body of bodies) for (const key of body.refused ?? []) if (key.startsWith(prefix) && !this.healed.has(segmentSeq(key)) && segmentSeq(key) < this.nextSeq()) lost.push(segmentSeq(key))
    if (lost.length === 0) return 0
    const resent = this.log.resend(deviceId)
    for (const seq of lost) this.healed.add(seq)
    return Math.max(resent, 1)
  }

  /**
   * Another device's record says it read a segment of ours numbered at or past the next one this
   * device would write: a put whose answer was lost (or one written after the backup this data
   * came from), which the store no longer holds. A segment written again under that number would
   * never be read there (decision 140), so numbering goes on after it; what was in it is sent
   * again (a lost answer left it pending anyway) and the numbers count as healed.
   */
  private skipNumbersRead(bodies: DeviceBody[]): void {
    const { deviceId } = this.deps
    const read = Math.max(0, ...bodies.filter((b) => b.id !== deviceId).map((b) => b.seen?.[deviceId] ?? 0))
    const next = this.nextSeq()
    if (read < next) return
    for (let seq = next; seq <= read; seq++) this.healed.add(seq)
    this.log.resend(deviceId)
    this.setNextSeq(read + 1)
  }

  /** Takes what this device's record in the store says it refused and healed (a restart keeps them so). */
  private seedFromRecord(bodies: DeviceBody[]): void {
    const stored = bodies.find((b) => b.id === this.deps.deviceId)
    for (const key of stored?.refused ?? []) this.refusedSegments.add(key)
    for (const seq of stored?.healed ?? []) this.healed.add(seq)
  }

  /** Whether a snapshot listed (the newest, or the device's own newest) covers `device` up to `seq`. */
  private async snapshotCovers(device: string, seq: number, newest: { covers: Record<string, number> } | undefined, snapshots: Array<{ key: string }>, tampered: string[]): Promise<boolean> {
    if ((newest?.covers[device] ?? 0) >= seq) return true
    const own = snapshots.filter((s) => s.key.endsWith(`-${device}.snap`)).pop()
    return own !== undefined && ((await this.coversOf(own.key, tampered))?.[device] ?? 0) >= seq
  }

  /**
   * Merges a snapshot: its records, then its image; then what it covers counts as seen. Left for
   * the next round when it or its image is missing or half written; named when refused.
   */
  private async mergeSnapshot(key: string, add: (m: MergeResult) => void, tampered: string[]): Promise<void> {
    try {
      const bytes = await this.get(key)
      if (!bytes) return
      const body = parse<SnapshotBody>(open(this.deps.key, key, bytes).plaintext)
      this.covers.set(key, body.covers)
      // The image's first chunks are on their way while the records are merged (messages are not taken here: nothing to fetch).
      const chunks = body.image && this.deps.scope.conversations ? this.fetchAhead(Array.from({ length: body.image.chunks }, (_, n) => ({ key: imageChunkKey(key, n) })), IMAGE_PREFETCH) : undefined
      await this.fetchBlobs(body.changes, tampered)
      // Parents (conversations) first: the image's messages need them.
      for (let i = 0; i < body.changes.length; i += SEGMENT_CHANGES) add(await this.apply(body.changes.slice(i, i + SEGMENT_CHANGES), body.covers))
      const image = body.image && chunks ? await this.applyImage(key, body as SnapshotBody & { image: ImageInfo }, chunks) : noMerge()
      // An image whose chunks are gone (its writer replaced it meanwhile) leaves `seen` as it was: the next round reads the newer snapshot.
      if (!image) return
      add(image)
      // A snapshot without a kind this device takes holds nothing of it, so it does not stand for
      // other devices' segments that carried some: only for its writer's own, which carried only
      // what the writer took (a device writes snapshots only while it takes every content kind).
      const writer = writerOf(key)
      const partial = body.holds !== undefined && (Object.keys(this.deps.scope) as Array<keyof SyncScope>).some((kind) => this.deps.scope[kind] && !body.holds![kind])
      for (const [device, seq] of Object.entries(body.covers)) if (device !== this.deps.deviceId && (!partial || device === writer)) this.log.setSeen(device, seq)
    } catch (error) {
      if (!(error instanceof TamperedObject)) throw error
      if (error.truncated) return
      tampered.push(error.key)
      // Told in this device's record: its writer writes another snapshot (decision 144).
      this.refusedSegments.add(error.key)
      // Refused (its body or a chunk of its image): from the next round it no longer stands for
      // the newest, and a new device starts from the snapshot before it rather than from nothing.
      this.covers.set(key, null)
    }
  }

  /**
   * Downloads a snapshot's image (chunk by chunk into a file of the data folder, each chunk
   * opened and the whole checked against the snapshot), then adopts it whole when this device
   * holds no messages, or merges its records. Undefined when a chunk is missing or half written.
   */
  private async applyImage(snapshot: string, body: SnapshotBody & { image: ImageInfo }, chunk: (n: number) => Promise<Uint8Array | undefined>): Promise<MergeResult | undefined> {
    const info = body.image
    // Said before the download, which is most of the wait on a slow link ("syncing 100,000 changes"), and then its bytes as they come.
    this.deps.progress?.(info.records)
    this.deps.transfer?.(0, info.bytes)
    let done = 0
    // Chunks checked against the tags the snapshot lists need no hash of the whole (an image from before tags does).
    const tags = info.tags?.length === info.chunks ? info.tags : undefined
    const file = new ImageFile(imageFile(this.deps.dataDir), !tags)
    try {
      // Two plaintext buffers in turn: one being written while the next chunk is opened into the other.
      const buffers: Buffer[] = []
      for (let n = 0; n < info.chunks; n++) {
        const key = imageChunkKey(snapshot, n)
        const bytes = await chunk(n)
        if (!bytes) return undefined
        let plaintext: Buffer
        try {
          const opened = open(this.deps.key, key, bytes, buffers[n % 2])
          if (opened.header.kind !== 'image' || opened.header.seq !== n || (tags && tagOf(bytes) !== tags[n])) throw new TamperedObject(key, false)
          plaintext = opened.plaintext
          buffers[n % 2] ??= plaintext
        } catch (error) {
          if (error instanceof TamperedObject && error.truncated) return undefined
          throw error
        }
        await file.append(plaintext)
        done += plaintext.length
        this.deps.transfer?.(done, info.bytes)
      }
      if (!(await file.finish(info))) throw new TamperedObject(snapshot, false)
      if (info.newest) this.deps.clock.observe(info.newest)
      const merge = noMerge()
      this.log.stamp()
      const adopted = adoptImage(this.deps.db, file.file, JSON.stringify(body.covers))
      if (adopted !== undefined) {
        merge.applied = adopted
        this.deps.applied?.(new Set(['messages']))
        return merge
      }
      // Not adoptable whole here: merged as the records it holds, like a segment's.
      for (const changes of imageChanges(this.deps.db, file.file, SEGMENT_CHANGES)) addMerge(merge, await this.apply(changes, body.covers))
      return merge
    } finally {
      await file.remove()
    }
  }

  /**
   * Fetches `objects` in order, keeping up to `count` beyond the one asked for in flight (at most
   * `bytes` of them, counting the sizes the listing gave), so the store's latency overlaps with the work
   * on each. The function it returns gives object i; take them in order. One not taken (the
   * caller stopped at a gap) is dropped, its failure with it.
   */
  private fetchAhead(objects: ReadonlyArray<{ key: string; size?: number }>, count: number, bytes = Infinity): (i: number) => Promise<Uint8Array | undefined> {
    const fetches = new Map<number, Promise<Uint8Array | undefined>>()
    let started = 0
    const start = (j: number) => {
      const got = this.get(objects[j]!.key)
      // Settled later; a failure surfaces when its turn comes.
      got.catch(() => undefined)
      fetches.set(j, got)
      started = j + 1
    }
    return (i) => {
      if (i >= objects.length) return Promise.resolve(undefined)
      if (i >= started) start(i)
      let held = 0
      for (let j = i + 1; j < Math.min(objects.length, i + 1 + count); j++) {
        held += objects[j]!.size ?? 0
        if (held > bytes) break
        if (j >= started) start(j)
      }
      const got = fetches.get(i) ?? this.get(objects[i]!.key)
      fetches.delete(i)
      return got
    }
  }

  private async apply(changes: Change[], origin: Origin): Promise<MergeResult> {
    const result = this.log.merge(changes, this.deps.scope, origin)
    if (this.deps.apiKeys) result.applied += await this.deps.apiKeys.merge(changes, origin)
    this.deps.applied?.(new Set(changes.map((c) => c.t)))
    return result
  }

  private filePath(path: string): string | undefined {
    const full = normalize(join(this.deps.dataDir, path))
    return full.startsWith(normalize(this.deps.dataDir) + sep) ? full : undefined
  }

  /**
   * The blobs a change of the files table names: the file, and the text extracted from it (what a
   * text or PDF attachment gives the model; an image has none, as the attachment service extracts
   * none), each with its path in the data folder (undefined outside it) and, for the file, the
   * sha256 its bytes must have and its size.
   */
  private blobsOf(change: Change): Array<{ path: string | undefined; key: string; sha256?: string; size?: number }> {
    return this.blobsOfRow(change.t === 'files' ? (change.f?.['*']?.[1] as FileRowFields | undefined) : undefined)
  }

  private blobsOfRow(row: FileRowFields | undefined): Array<{ path: string | undefined; key: string; sha256?: string; size?: number }> {
    if (!row?.path || !row.sha256) return []
    const file = { path: this.filePath(row.path), key: `blobs/${blobName(this.deps.key, row.sha256)}`, sha256: row.sha256, ...(typeof row.size === 'number' ? { size: row.size } : {}) }
    if (fileKind(row.name ?? '', row.mime_type ?? '') === 'image') return [file]
    return [file, { path: this.filePath(`files/${row.sha256}.txt`), key: `blobs/${blobName(this.deps.key, `${row.sha256}:text`)}` }]
  }

  /** Attachments and images are content-addressed: each is uploaded once, whoever has it. */
  private async putBlobs(changes: Change[]): Promise<void> {
    // Listed once per segment, only when a file is in it: there is no cheaper "exists" on every store.
    let stored: Set<string> | undefined
    let marked: Set<string> | undefined
    for (const change of changes)
      for (const { path, key } of this.blobsOf(change)) {
        if (!path || !existsSync(path)) continue
        stored ??= new Set((await this.deps.store.list('blobs/')).map((o) => o.key))
        marked ??= new Set((await this.deps.store.list('sweep/')).map((o) => o.key))
        const mark = markKey(key)
        if (stored.has(key) && !marked.has(mark)) continue
        // Marked by a device that found no row naming it: the mark goes first, so its writer, which
        // reads the mark again right before deleting, leaves the blob; then the blob is made sure of
        // (that device may have deleted it meanwhile).
        if (marked.has(mark)) {
          await this.deps.store.delete(mark)
          marked.delete(mark)
        }
        await this.deps.store.create(key, this.seal('blob', key, 0, readFileSync(path)))
        stored.add(key)
      }
  }

  /** The blobs this device's files rows name, with where each file is here. */
  private namedBlobRows(): Array<{ path: string | undefined; key: string; sha256?: string; size?: number }> {
    return this.deps.db.all(this.deps.db.q.selectFrom('files').select(['path', 'sha256', 'size', 'name', 'mime_type'])).flatMap((row) => this.blobsOfRow(row))
  }

  /** The blobs this device's rows name: its files, and those parked waiting for a parent. */
  private namedBlobs(): Set<string> {
    const named = new Set<string>()
    for (const { key } of this.namedBlobRows()) named.add(key)
    for (const { change } of this.deps.db.all(this.deps.db.q.selectFrom('sync_parked').select('change').where('tbl', '=', 'files'))) for (const { key } of this.blobsOf(JSON.parse(change) as Change)) named.add(key)
    return named
  }

  /** A sweep mark, read once; null when it does not open (not obeyed: only a device holding the key marks). */
  private async mark(key: string): Promise<MarkBody | null | undefined> {
    if (this.marks.has(key)) return this.marks.get(key)
    let body: MarkBody | null
    try {
      const bytes = await this.get(key)
      if (!bytes) return undefined
      body = parse<MarkBody>(open(this.deps.key, key, bytes).plaintext)
    } catch (error) {
      if (!(error instanceof TamperedObject)) throw error
      body = null
    }
    this.marks.set(key, body)
    return body
  }

  /**
   * Removes blobs no row names any more (decision 110). Run only after a round that merged every
   * segment listed, refused none and met no gap, by a device that takes every kind: then a row it
   * does not hold was written after the listing, or by a device that has not sent it yet. Such a
   * blob is first marked (`sweep/<name>.json`: which blob, this device, when), and deleted by its
   * marker only once BLOB_GRACE_MS has passed and the mark is still there when it looks again right
   * before deleting, with no segment arrived since the round's listing. A device that sends a row
   * naming a marked blob removes the mark and puts the blob back if it is gone; a device that finds
   * a mark on a blob it names removes it.
   */
  private async sweep(listed: ReadonlySet<string>): Promise<void> {
    const { store, deviceId } = this.deps
    const now = this.deps.clock.now()
    if (now - this.sweptAt < (this.deps.sweepEveryMs ?? SWEEP_EVERY_MS)) return
    this.sweptAt = now
    const grace = this.deps.blobGraceMs ?? BLOB_GRACE_MS
    const named = this.namedBlobs()
    const blobs = new Set((await store.list('blobs/')).map((o) => o.key))
    const marks = (await store.list('sweep/')).map((o) => o.key)
    const marked = new Set(marks)
    const due: string[] = []
    for (const blob of blobs) {
      const key = markKey(blob)
      if (named.has(blob)) {
        if (marked.has(key)) await store.delete(key)
        continue
      }
      if (!marked.has(key)) {
        const body: MarkBody = { blob, by: deviceId, at: now }
        if (await store.create(key, this.seal('mark', key, 0, json(body)))) this.marks.set(key, body)
        continue
      }
      const body = await this.mark(key)
      if (body && body.by === deviceId && body.blob === blob && now - body.at >= grace) due.push(blob)
    }
    // A mark whose blob is gone (a sweep stopped between its two deletes) stands for nothing.
    for (const key of marks) if (!blobs.has(blobOfMark(key))) await store.delete(key)
    if (due.length === 0) return
    // A segment written since the round's listing may name them: they wait for the next sweep.
    if ((await store.list('segments/')).some((o) => !listed.has(o.key) && !o.key.startsWith(`segments/${deviceId}/`))) return
    for (const blob of due) {
      const key = markKey(blob)
      // Read again, not from memory: a device sending a row that names it removes the mark first.
      this.marks.delete(key)
      const body = await this.mark(key)
      if (!body || body.by !== deviceId) continue
      await store.delete(blob)
      await store.delete(key)
      this.marks.delete(key)
    }
  }

  /**
   * Fetches the files the changes name into the data folder. One that does not open, or is not
   * the file its record names, is refused by name and left out: its record (and everything after
   * it) still merges, and the attachment shows as missing rather than holding sync at it.
   */
  private async fetchBlobs(changes: Change[], tampered: string[]): Promise<void> {
    const wanted: Array<{ path: string; key: string; sha256?: string; size?: number; device: string }> = []
    const paths = new Set<string>()
    for (const change of changes)
      for (const blob of this.blobsOf(change)) {
        const { path } = blob
        if (!path || paths.has(path) || existsSync(path)) continue
        paths.add(path)
        // The stamp's last part is the device that wrote the row (hlc.ts): named if the blob cannot be had.
        wanted.push({ ...blob, path, device: change.f?.['*']?.[0].split('-').slice(2).join('-') ?? '' })
      }
    await this.fetchWanted(wanted, tampered)
  }

  /** Fetches blobs into the data folder; one missing or refused is remembered in `unfetched`. Returns the keys fetched. */
  private async fetchWanted(wanted: Array<{ path: string; key: string; sha256?: string; size?: number; device: string }>, tampered: string[]): Promise<string[]> {
    const got: string[] = []
    const now = this.deps.clock.now()
    // A new device's history may name hundreds of images: a few on their way while one is written.
    const fetched = this.fetchAhead(wanted, BLOB_PREFETCH, BLOB_PREFETCH_BYTES)
    for (const [i, { path, key, sha256, device }] of wanted.entries()) {
      let plaintext: Buffer
      const met = this.unfetched.get(key)
      try {
        const bytes = await fetched(i)
        if (!bytes) {
          // The store lost it (or its writer has not sent it yet): asked for again, named while it lacks.
          // (A file's extracted text is not always there: only the file itself is missed.)
          // Told in this device's record like a refused one: a device that has the file writes it again.
          if (sha256) {
            this.unfetched.set(key, { since: met?.since ?? now, device: met?.device ?? device, refused: false })
            this.refusedSegments.add(key)
          }
          continue
        }
        plaintext = open(this.deps.key, key, bytes).plaintext
        if (sha256 && createHash('sha256').update(plaintext).digest('hex') !== sha256) throw new TamperedObject(key, false)
      } catch (error) {
        if (!(error instanceof TamperedObject)) throw error
        // Half a blob is no better. Told in this device's record, so a device that has the file writes it again.
        tampered.push(key)
        this.refusedSegments.add(key)
        this.unfetched.set(key, { since: met?.since ?? now, device: met?.device ?? device, refused: true })
        continue
      }
      mkdirSync(dirname(path), { recursive: true })
      writeFileSync(`${path}.part`, plaintext)
      renameSync(`${path}.part`, path)
      this.unfetched.delete(key)
      got.push(key)
    }
    return got
  }

  /**
   * Blobs kept whole, from the listing of `blobs/` the sweep makes anyway (issue 51): a blob a row
   * here names and whose file is here is written again when the store lost it or another device's
   * record says it refused it (put over, once per refusal: the refused one is there, damaged); one
   * whose file is not here is fetched again once the store holds it, and named while it does not.
   * Runs at the sweep's pace, and at once while a blob is wanted here or refused elsewhere.
   */
  private async keepBlobs(bodies: DeviceBody[], tampered: string[]): Promise<{ written: number; fixed: string[]; missing: Array<Omit<MissingObject, 'deviceName'>> }> {
    const { store, deviceId } = this.deps
    const none = { written: 0, fixed: [], missing: [] }
    if (!this.takesEverything()) return none
    const now = this.deps.clock.now()
    const refusals = bodies.filter((b) => b.id !== deviceId).flatMap((b) => (b.refused ?? []).filter((k) => k.startsWith('blobs/')).map((k) => ({ by: b.id, key: k })))
    const open = refusals.filter((r) => !this.rewritten.has(`${r.by} ${r.key}`))
    if (this.unfetched.size === 0 && open.length === 0 && now - this.keptAt < (this.deps.sweepEveryMs ?? SWEEP_EVERY_MS)) return none
    this.keptAt = now
    const stored = new Set((await store.list('blobs/')).map((o) => o.key))
    let marked: Set<string> | undefined
    let written = 0
    const wanted: Array<{ path: string; key: string; sha256?: string; size?: number; device: string }> = []
    const seen = new Set<string>()
    for (const blob of this.namedBlobRows()) {
      if (!blob.path || seen.has(blob.key)) continue
      seen.add(blob.key)
      if (existsSync(blob.path)) {
        const refusedBy = open.filter((r) => r.key === blob.key)
        if (stored.has(blob.key) && refusedBy.length === 0) continue
        // A sweep mark goes first, as when a row names it anew (putBlobs).
        marked ??= new Set((await store.list('sweep/')).map((o) => o.key))
        if (marked.has(markKey(blob.key))) await store.delete(markKey(blob.key))
        const sealed = this.seal('blob', blob.key, 0, readFileSync(blob.path))
        if (stored.has(blob.key)) await store.put(blob.key, sealed)
        else await store.create(blob.key, sealed)
        for (const r of refusedBy) this.rewritten.add(`${r.by} ${r.key}`)
        written++
      } else if (stored.has(blob.key)) {
        wanted.push({ ...blob, path: blob.path, device: this.unfetched.get(blob.key)?.device ?? '' })
      } else if (blob.sha256) {
        const met = this.unfetched.get(blob.key)
        this.unfetched.set(blob.key, { since: met?.since ?? now, device: met?.device ?? '', refused: met?.refused ?? false })
        this.refusedSegments.add(blob.key)
      }
    }
    // Rows gone meanwhile want nothing.
    for (const key of [...this.unfetched.keys()])
      if (!seen.has(key)) {
        this.unfetched.delete(key)
        this.refusedSegments.delete(key)
      }
    const got = await this.fetchWanted(wanted, tampered)
    const fixed = got.filter((key) => this.refusedSegments.delete(key))
    const missing = [...this.unfetched].filter(([key, m]) => !m.refused && !stored.has(key)).map(([key, m]) => ({ key, count: 1, device: m.device, since: m.since }))
    return { written, fixed, missing }
  }

  /**
   * Reads every device's record and writes this device's (name, last seen, what it has merged)
   * where the store's differs from it: gone, not opening, another name or what it merged, or a
   * last seen older than `DEVICE_RECORD_REFRESH_MS`.
   */
  private async register({ bodies, unreadable }: { bodies: DeviceBody[]; unreadable: string[] }): Promise<{ bodies: DeviceBody[]; unreadable: number }> {
    const { store, deviceId } = this.deps
    const key = deviceKey(deviceId)
    const now = this.deps.clock.now()
    const mine: DeviceBody = { id: deviceId, name: this.deps.deviceName, lastSeenAt: now, seen: Object.fromEntries(this.log.seen()) }
    if (this.refusedSegments.size) mine.refused = [...this.refusedSegments].sort()
    if (this.healed.size) mine.healed = [...this.healed].sort((a, b) => a - b)
    const stored = bodies.find((b) => b.id === deviceId)
    const age = stored ? now - stored.lastSeenAt : Infinity
    const sameLists = JSON.stringify(stored?.refused ?? []) === JSON.stringify(mine.refused ?? []) && JSON.stringify(stored?.healed ?? []) === JSON.stringify(mine.healed ?? [])
    if (stored && stored.name === mine.name && sameSeen(stored.seen, mine.seen) && sameLists && age >= 0 && age < DEVICE_RECORD_REFRESH_MS) return { bodies, unreadable: unreadable.length }
    await store.put(key, this.seal('device', key, 0, json(mine)))
    // Written over where it did not open: it no longer counts as a record that might hold a deletion back.
    return { bodies: [...bodies.filter((b) => b.id !== deviceId), mine], unreadable: unreadable.filter((k) => k !== key).length }
  }

  async devices(): Promise<SyncDevice[]> {
    return toDevices((await this.records()).bodies, this.deps.deviceId, this.deps.clock.now())
  }

  /**
   * Forgets another device gone for good: a marker the other devices read with the records, so
   * its record no longer holds deletions and it leaves the list; if it syncs again, its round
   * stops with DeviceForgotten. Its record and segments stay (only their writer deletes them).
   * Undefined when no such device is listed.
   */
  async forget(device: string): Promise<SyncDevice[] | undefined> {
    const { store, deviceId } = this.deps
    const { bodies } = await this.records()
    const record = bodies.find((b) => b.id === device)
    if (!record) return undefined
    const key = forgottenKey(device)
    const body: ForgottenBody = { id: device, name: record.name, by: deviceId, byName: this.deps.deviceName, at: this.deps.clock.now() }
    await store.put(key, this.seal('device', key, 0, json(body)))
    return this.devices()
  }

  /** The devices forgotten, by id: who forgot each and when (a marker that does not open is not obeyed). */
  private async forgotten(): Promise<Map<string, ForgottenBody>> {
    const found = new Map<string, ForgottenBody>()
    for (const { key } of await this.deps.store.list('forgotten/')) {
      const id = idOf(key)
      if (!id) continue
      try {
        const bytes = await this.get(key)
        if (!bytes) continue
        const body = parse<ForgottenBody>(open(this.deps.key, key, bytes).plaintext)
        if (body.id === id) found.set(id, body)
      } catch (error) {
        if (error instanceof SyncStoreError) throw error
        // Not obeyed: only a device holding the key can forget another.
      }
    }
    return found
  }

  /** Every device's record that opens, and the keys of those that do not. */
  private async records(known?: Map<string, ForgottenBody>): Promise<{ bodies: DeviceBody[]; unreadable: string[] }> {
    const bodies: DeviceBody[] = []
    const unreadable: string[] = []
    // Forgotten devices are left out: they hold no deletions and are not listed.
    const forgotten = known ?? (await this.forgotten())
    for (const { key } of await this.deps.store.list('devices/')) {
      const id = idOf(key)
      if (id && forgotten.has(id)) continue
      try {
        const bytes = await this.get(key)
        if (!bytes) continue
        bodies.push(parse<DeviceBody>(open(this.deps.key, key, bytes).plaintext))
      } catch (error) {
        if (error instanceof SyncStoreError) throw error
        // Not listed (its device writes it again at its next round), and counted.
        unreadable.push(key)
      }
    }
    return { bodies, unreadable }
  }

  /**
   * Whether this device may write snapshots: only while it takes every content kind. A snapshot
   * stands for the segments it covers, and one from a device that passed over conversations or
   * images would leave them out for every device that starts from it. Segments wait for a device
   * that takes everything (API keys aside: the snapshot says whether it holds them, see `holds`).
   */
  private takesEverything(): boolean {
    const { conversations, agents, settings, images } = this.deps.scope
    return conversations && agents && settings && images
  }

  /**
   * When enough segments piled up after the newest snapshot — COMPACT_AFTER of them that also come
   * to COMPACT_SHARE of its bytes, or COMPACT_BYTES, or COMPACT_MAX_SEGMENTS — this device writes a
   * snapshot of everything it has merged and removes its own segments the snapshot covers. A device behind
   * a removed segment starts from the snapshot: states merge in any order, so nothing is lost.
   */
  private async compact(
    byDevice: Map<string, Array<{ seq: number; key: string; size: number }>>,
    newest: { key: string; covers: Record<string, number> } | undefined,
    snapshots: Array<{ key: string }>,
    snapshotObjects: Array<{ key: string; size: number }>,
    pushedNow: boolean,
    forgotten: ReadonlyMap<string, readonly number[]>,
    /** Other devices' refusals of this device's snapshots, not answered yet: a snapshot is written now. */
    refusals: string[] = []
  ): Promise<void> {
    if (!this.takesEverything()) return
    if (refusals.length) {
      await this.snapshotAndPrune(snapshots, snapshotObjects, forgotten, new Set(refusals.map((r) => r.slice(r.indexOf(' ') + 1).replace(/\.img\.\d+$/, '.snap'))))
      for (const r of refusals) this.rewritten.add(r)
      this.dueUnsent = false
      return
    }
    // Only segments after what the newest snapshot covers count: a device that stopped syncing
    // leaves its old segments in the store, and they must not make every round write a snapshot.
    const covers = newest?.covers ?? {}
    let count = 0
    let bytes = 0
    for (const [device, list] of byDevice)
      for (const { seq, size } of list)
        if (seq > (covers[device] ?? 0)) {
          count++
          bytes += size
        }
    // What writing it again costs: the newest snapshot's body and image, as listed.
    const base = newest?.key.replace(/\.snap$/, '')
    const snapshotBytes = base ? snapshotObjects.reduce((n, o) => (o.key === newest!.key || o.key.startsWith(`${base}.img.`) ? n + o.size : n), 0) : 0
    const due =
      bytes >= (this.deps.compactBytes ?? COMPACT_BYTES) ||
      count >= (this.deps.compactMaxSegments ?? COMPACT_MAX_SEGMENTS) ||
      (count >= (this.deps.compactAfter ?? COMPACT_AFTER) && bytes >= (this.deps.compactShare ?? COMPACT_SHARE) * snapshotBytes)
    if (!due) {
      this.dueUnsent = false
      return
    }
    // Due in a round that sent nothing: another device's segment made it due, and that device is
    // writing the snapshot now (over PostgreSQL its segment woke this round at once). Written here
    // too, the history would go up twice. This device writes it only if it is still due at its
    // next round (the other one cannot write snapshots, or stopped).
    if (!pushedNow && !this.dueUnsent) {
      this.dueUnsent = true
      return
    }
    // Still set while it is written: an attempt that fails (the store full) is tried again at the next round whatever it sends.
    this.dueUnsent = true
    await this.snapshotAndPrune(snapshots, snapshotObjects, forgotten)
    this.dueUnsent = false
  }

  /**
   * Refusals, in other devices' records, of a snapshot of this device (its body or a chunk of its
   * image) still in the store and not answered by this process (`<device> <key>`). A device that
   * refused the newest starts from an older one or from nothing, and would catch up only when this
   * device next compacts — with nothing more to send, never.
   */
  private snapshotRefusals(bodies: DeviceBody[], snapshotObjects: Array<{ key: string }>): string[] {
    const listed = new Set(snapshotObjects.map((o) => o.key))
    return bodies
      .filter((b) => b.id !== this.deps.deviceId)
      .flatMap((b) => (b.refused ?? []).filter((key) => key.startsWith('snapshots/') && listed.has(key) && writerOf(key.replace(/\.img\.\d+$/, '.snap')) === this.deps.deviceId).map((key) => `${b.id} ${key}`))
      .filter((r) => !this.rewritten.has(r))
  }

  /**
   * Whether the changes waiting are a long backlog: many (SNAPSHOT_BACKLOG), and at least half of
   * what this device holds. Sent as segments, a compaction would write them all again at once as a
   * snapshot (COMPACT_BYTES is reached long before), so a first push of a history uploaded it twice.
   */
  private longBacklog({ pending, total }: { pending: number; total: number }): boolean {
    return this.takesEverything() && pending >= (this.deps.snapshotBacklog ?? SNAPSHOT_BACKLOG) && pending * 2 >= total
  }

  /**
   * A snapshot `pushAsSnapshot` reserved and did not finish (the process stopped, the store failed):
   * the segment it ends with, the one before `next_seq`, is not in the store. Until one covering
   * the reserved number is written, a segment after it would be a gap other devices wait at.
   */
  private owesSnapshot(byDevice: Map<string, Array<{ seq: number }>>): boolean {
    const last = this.nextSeq() - 1
    return last > 0 && !(byDevice.get(this.deps.deviceId) ?? []).some((s) => s.seq === last)
  }

  /**
   * Sends every waiting change of this device at once as a snapshot (decision 88): its number is
   * reserved first (one past the next, so even a first push leaves a gap every other device sees),
   * then the snapshot covering it is written and this device's older segments are removed, then an
   * empty segment under the reserved number tells devices that read segments that they are behind
   * (they read the snapshot, as after any compaction), and only then is everything marked sent.
   * Stopped anywhere before the end, the changes stay waiting and the next round does it again.
   */
  private async pushAsSnapshot(pending: number, snapshots: Array<{ key: string }>, snapshotObjects: Array<{ key: string }>, forgotten: ReadonlyMap<string, readonly number[]>): Promise<number> {
    const { store, deviceId } = this.deps
    this.deps.progress?.(pending)
    const seq = this.nextSeq() + 1
    this.setNextSeq(seq + 1)
    // The files its records name go first, as with a segment (no other table has any).
    await this.putBlobs([...this.log.everything(this.deps.scope, new Set(SYNCED_TABLES.map((t) => t.name).filter((name) => name !== 'files')))])
    await this.snapshotAndPrune(snapshots, snapshotObjects, forgotten)
    const key = segmentKey(deviceId, seq)
    await store.put(key, this.seal('segment', key, seq, json({ changes: [] } satisfies SegmentBody)))
    return this.log.sentAll(this.deps.scope, { [deviceId]: seq })
  }

  /**
   * Writes a snapshot of everything, then removes this device's segments and snapshots (and their
   * image chunks) it makes unneeded, and what forgotten devices (with their listed segments) left
   * that it stands for. This device is never among them: its round stops first.
   */
  private async snapshotAndPrune(
    snapshots: Array<{ key: string }>,
    snapshotObjects: Array<{ key: string }>,
    forgotten: ReadonlyMap<string, readonly number[]>,
    /** This device's snapshots another device refused: they go too, once this one is written. */
    refused: ReadonlySet<string> = new Set()
  ): Promise<void> {
    const { store, deviceId } = this.deps
    const written = await this.writeSnapshot()
    this.wroteSnapshot = true
    const covers = this.covers.get(written) ?? {}
    const mine = (await store.list(`segments/${deviceId}/`)).filter((s) => segmentSeq(s.key) < this.nextSeq() - 1)
    for (const { key } of mine) await store.delete(key)
    // A forgotten device never writes under its id again, so what it left would stay for good (its
    // history's snapshot, twice, in someone's Dropbox): its segments this snapshot covers go, but
    // its newest (as a device keeps its own).
    for (const [device, left] of forgotten) {
      const newest = Math.max(0, ...left)
      for (const seq of left) if (seq < newest && seq <= (covers[device] ?? 0)) await store.delete(segmentKey(device, seq))
    }
    // The newest two snapshots stay (one being read while the next is written); older ones of this device go, each before its image.
    const writer = (key: string) => writerOf(key) ?? ''
    const kept = new Set([written, ...snapshots.map((s) => s.key)])
    for (const { key } of snapshots.slice(0, -1)) {
      if (writer(key) !== deviceId) continue
      await store.delete(key)
      kept.delete(key)
    }
    // One another device refused is no use to it as the one before: this one replaces it.
    for (const key of refused)
      if (key !== written && writer(key) === deviceId && kept.has(key)) {
        await store.delete(key)
        kept.delete(key)
      }
    // A forgotten device's snapshot goes once this one covers all it does (one that does not open or is gone goes too).
    for (const { key } of snapshots) {
      if (!forgotten.has(writer(key))) continue
      const theirs = await this.coversOf(key, [])
      if (theirs && Object.entries(theirs).some(([device, seq]) => seq > (covers[device] ?? 0))) continue
      await store.delete(key)
      kept.delete(key)
    }
    // Then every chunk of ours or a forgotten device's whose snapshot is not kept: those just
    // removed, and those whose snapshot was never written (the store filled up, the process
    // stopped half way), each up to a history's size.
    for (const { key } of snapshotObjects) {
      const snapshot = key.replace(/\.img\.\d+$/, '.snap')
      const by = writer(snapshot)
      if (snapshot !== key && (by === deviceId || forgotten.has(by)) && !kept.has(snapshot)) await store.delete(key)
    }
  }

  /**
   * What a snapshot covers, read once per snapshot. Undefined while it is gone or half written
   * (asked again next time); null when it does not open (named, once).
   */
  private async coversOf(snapshot: string, tampered: string[]): Promise<Record<string, number> | null | undefined> {
    const known = this.covers.get(snapshot)
    if (known !== undefined) return known
    try {
      const bytes = await this.get(snapshot)
      if (!bytes) return undefined
      const { covers } = parse<SnapshotBody>(open(this.deps.key, snapshot, bytes).plaintext)
      this.covers.set(snapshot, covers)
      return covers
    } catch (error) {
      if (!(error instanceof TamperedObject)) throw error
      if (error.truncated) return undefined
      this.covers.set(snapshot, null)
      tampered.push(snapshot)
      this.refusedSegments.add(snapshot)
      return null
    }
  }

  /**
   * The newest snapshot that is not refused. One that does not open (put there by someone without
   * the key, named to sort last) must not stand for the newest: nothing would count as covered, and
   * every device would write a snapshot every round. One half written or gone since the listing
   * still does (covering nothing for now), as before: the round waits for it rather than start a
   * fresh device from an older one.
   */
  private async newestReadable(snapshots: Array<{ key: string }>, tampered: string[]): Promise<{ key: string; covers: Record<string, number> } | undefined> {
    for (let i = snapshots.length - 1; i >= 0; i--) {
      const covers = await this.coversOf(snapshots[i]!.key, tampered)
      if (covers !== null) return { key: snapshots[i]!.key, covers: covers ?? {} }
    }
    return undefined
  }

  async writeSnapshot(): Promise<string> {
    this.log.stamp()
    const covers: Record<string, number> = Object.fromEntries(this.log.seen())
    covers[this.deps.deviceId] = this.nextSeq() - 1
    // Only what is already in a segment: a change still pending goes in the next segment, not here.
    const key = `snapshots/${String(this.deps.clock.now()).padStart(13, '0')}-${this.deps.deviceId}.snap`
    // Messages (nearly all of a history) travel as a database image a new device adopts whole; its chunks go first, so a listed snapshot has them.
    const image = this.deps.scope.conversations ? await this.putImage(key) : undefined
    const changes = [...this.log.everything(this.deps.scope, new Set(image ? ['messages'] : [])), ...((await this.deps.apiKeys?.everything()) ?? [])]
    const holds: SyncScope = { ...this.deps.scope, apiKeys: this.deps.scope.apiKeys && this.deps.apiKeys !== undefined }
    await this.deps.store.put(key, this.seal('snapshot', key, 0, json({ covers, holds, changes, ...(image ? { image } : {}) } satisfies SnapshotBody), image ? IMAGE_FORMAT : undefined))
    this.covers.set(key, covers)
    return key
  }

  private async putImage(snapshot: string): Promise<ImageInfo> {
    const file = imageFile(this.deps.dataDir)
    try {
      const written = writeImage(this.deps.db, file)
      const chunks = chunksOf(file, this.deps.imageChunk)
      const tags: string[] = []
      for (;;) {
        const next = chunks.next()
        if (next.done) return { ...written, ...next.value, chunks: tags.length, tags }
        const key = imageChunkKey(snapshot, tags.length)
        const sealed = this.seal('image', key, tags.length, next.value, IMAGE_FORMAT)
        await this.deps.store.put(key, sealed)
        tags.push(tagOf(sealed))
      }
    } finally {
      rmSync(file, { force: true })
    }
  }
}
