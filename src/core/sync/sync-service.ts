import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import { sql } from 'kysely'
import type { SyncDevice, SyncError, SyncReplacedEdit, SyncScope, SyncSetup, SyncStatus, SyncStoreConfig } from '../../shared/bridge/procedures/sync'
import { AppErrorException } from '../../shared/errors/app-error'
import { ERROR_CATALOGUE, type ErrorTypeName } from '../../shared/errors/catalogue'
import { settledWithin } from '../../shared/utils/settled-within'
import type { StoreDb } from '../store/database'
import { RESTORE_WAIT_MS } from '../store/store'
import { toStoreError } from '../store/errors'
import { logger } from '../log/logger'
import { API_KEYS, ApiKeySync, noteAllKeys, noteKey } from './api-keys'
import { KEYS_OBJECT, KeysFileIncomplete, newKeys, open, parseKeysFile, checkKey, unlockKeys, WrongPassphrase } from './crypto'
import { ChangeLog } from './change-log'
import { deviceKey, DeviceForgotten, isNews, segmentSeq, SyncEngine, type RoundResult } from './engine'
import { HybridClock, type WallClock } from './hlc'
import { ObjectTooLarge, RefusedObject, SyncStoreError, type SyncStore } from './store'

/**
 * The keychain entries of sync, per device id (two data folders on one machine are two devices):
 * the store's own secret and the derived key, never the passphrase.
 */
export const syncSecretName = (deviceId: string) => `sync:secret:${deviceId}`
export const syncKeyName = (deviceId: string) => `sync:key:${deviceId}`

/** What the service needs of the keychain (the Secrets service has it). */
export interface SyncSecrets {
  set(name: string, value: string): Promise<unknown>
  delete(name: string): Promise<unknown>
  readForRuntime(name: string): Promise<string | undefined>
  /** After every set or delete, whoever made it: API keys are noted for sync from here. */
  onChange?(listener: (name: string) => void): () => void
}

export type OpenStore = (config: SyncStoreConfig, secret?: string) => Promise<SyncStore>

/** What a test (or a build) may tune: timings, the wall clock, the KDF cost, a wrapper around each store opened. */
export type SyncTuning = Partial<Pick<SyncServiceDeps, 'clock' | 'newDeviceId' | 'debounceMs' | 'pollMs' | 'localCheckMs' | 'retryMs' | 'maxRetryMs' | 'kdf' | 'compactAfter' | 'compactBytes' | 'compactShare' | 'compactMaxSegments' | 'imageChunk' | 'segmentBytes' | 'snapshotBacklog' | 'restoreWaitMs' | 'blobGraceMs' | 'sweepEveryMs'>> & {
  wrapStore?: (store: SyncStore) => SyncStore
}

export interface SyncServiceDeps {
  db: StoreDb
  dataDir: string
  secrets: SyncSecrets
  openStore: OpenStore
  /** False for a remote browser-mode client: a store address or folder is a host resource. */
  mayChange: () => boolean
  /** Another device's changes reached these tables: caches to drop (the settings cache). */
  applied?: (tables: Set<string>) => void
  /** Which keychain entries are API keys (synced when the scope says so; never sync's own or a tool server's). */
  apiKeys?: { names(): string[]; isKey(name: string): boolean }
  clock?: WallClock
  /** A new device id (tests only: the simulation draws them from its seed, since they order segments); 16 random hex digits by default. */
  newDeviceId?: () => string
  /** Quiet time after a local change before sending it (ms; by default 0.5 s where the store pushes, 1.5 s where it is polled). */
  debounceMs?: number
  /** How often the store is asked for other devices' changes when it cannot push them (ms). */
  pollMs?: number
  /** How often the change log is looked at for local changes (ms), besides after every write `watchWrites` reports. */
  localCheckMs?: number
  /** Calls its argument after each write to this device's database (a send need not wait for the next look). */
  watchWrites?: (watcher: () => void) => () => void
  /** The first retry after a failure (ms); doubled each time up to maxRetryMs. */
  retryMs?: number
  maxRetryMs?: number
  /** Segments in the store before a snapshot is written (tests lower it). */
  compactAfter?: number
  /** Bytes of segments after the newest snapshot before a device writes one (engine COMPACT_BYTES). */
  compactBytes?: number
  /** Share of the newest snapshot's bytes the segments after it come to before one is written (engine COMPACT_SHARE; tests that count segments set 0). */
  compactShare?: number
  /** Segments after the newest snapshot at which one is written whatever their bytes (engine COMPACT_MAX_SEGMENTS). */
  compactMaxSegments?: number
  /** Bytes of a snapshot image's chunk (image IMAGE_CHUNK; tests lower it). */
  imageChunk?: number
  /** Bytes past which a segment holds fewer changes (engine SEGMENT_BYTES; tests lower it). */
  segmentBytes?: number
  /** Changes waiting from which they go out as a snapshot (engine.ts SNAPSHOT_BACKLOG). */
  snapshotBacklog?: number
  /** How long a restore waits for the running round to end before it is refused (RESTORE_WAIT_MS, as for replies). */
  restoreWaitMs?: number
  /** How long a blob no row names stays marked before it is deleted (engine BLOB_GRACE_MS). */
  blobGraceMs?: number
  /** How often a device sweeps blobs no row names (engine SWEEP_EVERY_MS). */
  sweepEveryMs?: number
  /** scrypt cost, lower in tests. */
  kdf?: { N: number; r: number; p: number }
}

interface Saved {
  store: SyncStoreConfig
  scope: SyncScope
  paused: boolean
  /**
   * The data was restored from a backup since the last connection: whether the store still holds
   * this device's history as the restored data left it is checked before the next round.
   */
  restored?: boolean
  /**
   * The store's key file as this device found it (KDF parameters, salt, key check: nothing
   * secret), so a round can put it back when it is gone from the store.
   */
  keysFile?: string
}

/**
 * Changes in the outbox a round would send now: not a reply still streaming (it goes when
 * finished). Counted as all minus those, through the index of streaming replies: a per-row check
 * took 100 ms at 100,000 waiting changes, after every write.
 */
const readyToSend = (db: StoreDb) =>
  db.q.selectNoFrom((eb) =>
    eb(
      eb.selectFrom('sync_outbox').select(eb.fn.countAll<number>().as('n')),
      '-',
      eb
        .selectFrom('messages as m')
        .select(eb.fn.countAll<number>().as('n'))
        .where('m.status', '=', 'streaming')
        .where(({ exists, selectFrom }) => exists(selectFrom('sync_outbox as o').select(sql.lit(1).as('one')).where('o.tbl', '=', 'messages').whereRef('o.key', '=', 'm.id')))
    )
      .$notNull()
      .as('n')
  )

export const DEFAULT_SCOPE: SyncScope = { conversations: true, agents: true, settings: true, images: true, apiKeys: false }

const appError = (errorType: ErrorTypeName, message: string, detail?: unknown) =>
  new AppErrorException({ errorType, status: ERROR_CATALOGUE[errorType].status, message, ...(detail !== undefined ? { detail } : {}) })

/** A store or sync failure as the status shows it: a code, the words, the fix. */
export function syncErrorOf(error: unknown): SyncError {
  if (error instanceof SyncStoreError) return { code: error.code, message: error.message, fix: error.fix ?? ERROR_CATALOGUE[error.code].text.en.fix }
  if (error instanceof WrongPassphrase) return { code: 'SyncWrongPassphrase', message: error.message, fix: ERROR_CATALOGUE.SyncWrongPassphrase.text.en.fix }
  if (error instanceof DeviceForgotten) return { code: 'SyncDeviceForgotten', message: error.message, fix: ERROR_CATALOGUE.SyncDeviceForgotten.text.en.fix }
  if (error instanceof AppErrorException) return { code: error.error.errorType, message: error.message, fix: (ERROR_CATALOGUE as Record<string, { text: { en: { fix: string } } }>)[error.error.errorType]?.text.en.fix }
  return { code: 'SyncStoreFailed', message: (error as Error)?.message ?? String(error), fix: ERROR_CATALOGUE.SyncStoreFailed.text.en.fix }
}

const toAppError = (error: unknown): AppErrorException => {
  if (error instanceof AppErrorException) return error
  const e = syncErrorOf(error)
  return appError(e.code as ErrorTypeName, e.fix ? `${e.message} ${e.fix}` : e.message)
}

/**
 * Sync of this data folder with the user's store: set-up, the key, scheduling (soon after a
 * local change, on a push from the store or by polling with back-off, retries while offline),
 * and the status every screen and the CLI read.
 */
export class SyncService {
  private store: SyncStore | undefined
  private engine: SyncEngine | undefined
  private key: Buffer | undefined
  private readonly clock: HybridClock
  private readonly log: ChangeLog
  private state: SyncStatus['state'] = 'off'
  private error: SyncError | undefined
  private lastSyncedAt: number | undefined
  private nextRetryAt: number | undefined
  private lastMerge: SyncStatus['lastMerge']
  private devicesList: SyncDevice[] = []
  private syncing: number | undefined
  /** The running round's long download, while it lasts. */
  private transfer: { done: number; total: number } | undefined
  private tampered = new Set<string>()
  /** Gaps in other devices' segments the last round read past. */
  private missing: RoundResult['missing'] = []
  private failures = 0
  private idleRounds = 0
  private timer: NodeJS.Timeout | undefined
  private localTimer: NodeJS.Timeout | undefined
  private stopWrites: (() => void) | undefined
  private writeCheck: NodeJS.Timeout | undefined
  /** How many changes ready to send the outbox held when last looked at (-1: look again from nothing). */
  private outboxSeen = -1
  private stopWatch: (() => Promise<void>) | undefined
  private running: Promise<void> | undefined
  private closed = false
  /** A restore is replacing the data: no round starts until it is done. */
  private restoring = false
  /**
   * Which connection is current: every connect, Disconnect and set-up takes a new number, and a
   * connect that finds another number after an await (the store answered late) gives up without
   * touching anything, so a resume still reaching its store never undoes what was done meanwhile.
   */
  private generation = 0
  private idBeforeRestore: string | undefined
  private started: Promise<void> | undefined
  private readonly listeners = new Set<(status: SyncStatus) => void>()
  /** Keys being written from another device's change: not noted again (no echo). */
  private readonly applyingKeys = new Set<string>()

  constructor(private readonly deps: SyncServiceDeps) {
    this.clock = new HybridClock(this.deviceId() || 'unset', deps.clock ?? Date.now)
    this.log = new ChangeLog(deps.db, this.clock)
    deps.secrets.onChange?.((name) => this.keyChanged(name))
  }

  /** The keychain has no trigger: a provider key set or removed here is noted for the next round. */
  private keyChanged(name: string): void {
    if (this.applyingKeys.has(name) || !this.saved()?.scope.apiKeys || !this.deps.apiKeys?.isKey(name)) return
    if (this.deps.db.first(this.deps.db.q.selectFrom('sync_control').select('enabled').where('id', '=', 1))?.enabled !== 1) return
    noteKey(this.deps.db, name)
  }

  private apiKeySync(saved: Saved): ApiKeySync | undefined {
    const keys = this.deps.apiKeys
    if (!saved.scope.apiKeys || !keys || !this.key) return undefined
    const { secrets } = this.deps
    return new ApiKeySync(
      this.deps.db,
      this.log,
      this.clock,
      {
        names: () => keys.names(),
        isKey: (name) => keys.isKey(name),
        read: (name) => secrets.readForRuntime(name),
        write: async (name, value) => {
          this.applyingKeys.add(name)
          try {
            await (value === undefined ? secrets.delete(name) : secrets.set(name, value))
          } finally {
            this.applyingKeys.delete(name)
          }
        }
      },
      this.key
    )
  }

  // ---- persisted, device-local configuration (the sync_control row; never synced)

  private control(): { device_id: string | null; device_name: string | null; config: string | null; next_seq: number } {
    return this.deps.db.first(this.deps.db.q.selectFrom('sync_control').select(['device_id', 'device_name', 'config', 'next_seq']).where('id', '=', 1))!
  }

  private freshDeviceId(): string {
    return this.deps.newDeviceId?.() ?? randomBytes(8).toString('hex')
  }

  private deviceId(): string {
    return this.control().device_id ?? ''
  }

  private saved(): Saved | undefined {
    const config = this.control().config
    return config ? (JSON.parse(config) as Saved) : undefined
  }

  private save(saved: Saved | undefined): void {
    this.deps.db.runUnwatched(this.deps.db.q.updateTable('sync_control').set({ config: saved ? JSON.stringify(saved) : null }).where('id', '=', 1))
  }

  // ---- status

  status(): SyncStatus {
    const saved = this.saved()
    const control = this.control()
    const pending = saved ? this.log.pending(saved.scope.apiKeys) : 0
    const refusedNow = this.tampered.size ? `Refused, not merged: ${named([...this.tampered])}.` : ''
    const missingNow = this.missing.length
      ? `Missing from the store: ${this.missing
          .slice(0, 5)
          .map((m) => `${m.key}${m.count > 1 ? ` and ${(m.count - 1).toLocaleString('en')} after it` : ''} from ${m.deviceName} since ${new Date(m.since).toISOString().slice(0, 16).replace('T', ' ')} UTC`)
          .join('; ')}${this.missing.length > 5 ? ` and ${this.missing.length - 5} more` : ''}; what came after was merged.`
      : ''
    const error =
      this.error ??
      (refusedNow || missingNow ? { ...syncErrorOf(appError(refusedNow ? 'SyncTampered' : 'SyncMissing', '')), message: [refusedNow, missingNow].filter(Boolean).join(' ') } : undefined)
    return {
      state: this.state,
      ...(saved ? { store: saved.store } : {}),
      scope: saved?.scope ?? DEFAULT_SCOPE,
      // Kept after Disconnect (set up again with the same store, this device goes on as itself), shown only while set up.
      deviceId: saved ? (control.device_id ?? '') : '',
      deviceName: control.device_name ?? hostname(),
      pendingChanges: pending,
      ...(this.syncing !== undefined ? { syncingChanges: this.syncing } : {}),
      ...(this.transfer ? { transfer: this.transfer } : {}),
      ...(this.lastSyncedAt ? { lastSyncedAt: this.lastSyncedAt } : {}),
      ...(this.nextRetryAt ? { nextRetryAt: this.nextRetryAt } : {}),
      ...(error ? { error } : {}),
      ...(this.lastMerge ? { lastMerge: this.lastMerge } : {}),
      devices: this.devicesList,
      ...(this.missing.length ? { missing: this.missing } : {}),
      canChange: this.deps.mayChange()
    }
  }

  /** Calls `listener` with the status after every change; returns the unsubscribe function. */
  onStatus(listener: (status: SyncStatus) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** The status now and after every change, until `signal` aborts. */
  async *watch(signal?: AbortSignal): AsyncGenerator<SyncStatus> {
    let wake: (() => void) | undefined
    let dirty = true
    const off = this.onStatus(() => {
      dirty = true
      wake?.()
    })
    const abort = () => wake?.()
    signal?.addEventListener('abort', abort)
    try {
      while (!signal?.aborted && !this.closed) {
        if (dirty) {
          dirty = false
          yield this.status()
          continue
        }
        await new Promise<void>((resolve) => (wake = resolve))
        wake = undefined
      }
    } finally {
      off()
      signal?.removeEventListener('abort', abort)
    }
  }

  private emit(): void {
    if (this.listeners.size === 0) return
    const status = this.status()
    for (const listener of this.listeners) listener(status)
  }

  private setState(state: SyncStatus['state'], error?: SyncError): void {
    this.state = state
    this.error = error
    this.emit()
  }

  // ---- life cycle

  /** At start-up: resumes sync when it was set up (locked when the key is not in the keychain). */
  start(): Promise<void> {
    return (this.started ??= this.resume())
  }

  /** Resolves once start-up's resume is done (callers that act right after start-up wait for it). */
  async ready(): Promise<void> {
    await this.started?.catch(() => undefined)
  }

  private async resume(): Promise<void> {
    const generation = ++this.generation
    const saved = this.saved()
    if (!saved) return this.setState('off')
    const key = await this.deps.secrets.readForRuntime(syncKeyName(this.deviceId())).catch(() => undefined)
    if (generation !== this.generation) return
    if (!key) return this.setState('locked', { code: 'SyncNotSetUp', message: 'The sync key is not in this device’s keychain.', fix: 'Type the sync passphrase again in Settings → Sync.' })
    this.key = Buffer.from(key, 'base64')
    await this.connect(saved, generation)
  }

  private async connect(saved: Saved, generation = ++this.generation): Promise<void> {
    await this.disconnectStore()
    // Disconnect, a set-up or another connect came meanwhile (or a restore began: it connects again when it is done).
    const stale = () => generation !== this.generation || this.restoring || this.closed
    if (stale()) return
    if (saved.paused) return this.setState('paused')
    let store: SyncStore
    try {
      const secret = await this.deps.secrets.readForRuntime(syncSecretName(this.deviceId())).catch(() => undefined)
      if (stale()) return
      store = await this.deps.openStore(saved.store, secret)
    } catch (error) {
      if (!stale()) this.failed(error)
      return
    }
    if (stale()) {
      await store.close().catch(() => undefined)
      return
    }
    this.store = store
    if (saved.restored) {
      let holds: boolean
      try {
        // Restored from a backup: its segment numbers and what it merged are the backup's. When
        // the store holds more of this device than that (it wrote on after the backup), it goes
        // on as a new device, as a set-up on another history does: numbering on from the backup
        // would reuse numbers the others have read, and what it wrote after the backup comes back
        // only when read as another device's.
        holds = await this.holdsHistory(store, this.key!)
        if (stale()) return this.dropStale(store)
        if (!holds) await this.becomeNewDevice()
      } catch (error) {
        if (stale()) return this.dropStale(store)
        this.failed(error)
        return
      }
      saved = { ...saved, restored: undefined }
      this.save(saved)
    }
    this.engine = this.makeEngine(store, saved)
    this.startLocalWatch()
    if (store.watch) {
      try {
        const stop = await store.watch((key) => {
          if (isNews(key, this.deviceId())) this.schedule(100)
        })
        if (stale()) {
          await stop().catch(() => undefined)
          return this.dropStale(store)
        }
        this.stopWatch = stop
      } catch (error) {
        if (stale()) return this.dropStale(store)
        logger.warn('sync', 'the store could not push changes; polling instead', error)
      }
    }
    this.setState('idle')
    this.schedule(0)
  }

  /** A connection overtaken while it waited on its store: closed, unless it is the one in use after all. */
  private async dropStale(store: SyncStore): Promise<void> {
    if (this.store !== store) await store.close().catch(() => undefined)
  }

  private makeEngine(store: SyncStore, saved: Saved): SyncEngine {
    const control = this.control()
    const apiKeys = this.apiKeySync(saved)
    return new SyncEngine({
      db: this.deps.db,
      store,
      key: this.key!,
      deviceId: control.device_id!,
      deviceName: control.device_name ?? hostname(),
      clock: this.clock,
      scope: saved.scope,
      dataDir: this.deps.dataDir,
      ...(this.deps.compactAfter ? { compactAfter: this.deps.compactAfter } : {}),
      ...(this.deps.compactBytes ? { compactBytes: this.deps.compactBytes } : {}),
      ...(this.deps.compactShare !== undefined ? { compactShare: this.deps.compactShare } : {}),
      ...(this.deps.compactMaxSegments ? { compactMaxSegments: this.deps.compactMaxSegments } : {}),
      ...(this.deps.imageChunk ? { imageChunk: this.deps.imageChunk } : {}),
      ...(this.deps.segmentBytes ? { segmentBytes: this.deps.segmentBytes } : {}),
      ...(this.deps.snapshotBacklog ? { snapshotBacklog: this.deps.snapshotBacklog } : {}),
      ...(this.deps.blobGraceMs !== undefined ? { blobGraceMs: this.deps.blobGraceMs } : {}),
      ...(this.deps.sweepEveryMs !== undefined ? { sweepEveryMs: this.deps.sweepEveryMs } : {}),
      ...(apiKeys ? { apiKeys } : {}),
      progress: (n) => {
        this.syncing = (this.syncing ?? 0) + n
        this.emit()
      },
      transfer: (done, total) => {
        this.transfer = { done, total }
        this.emit()
      },
      ...(this.deps.applied ? { applied: this.deps.applied } : {})
    })
  }

  /**
   * Looks at the outbox after each write (coalesced; writes from the repositories are reported)
   * and every `localCheckMs` for the rest, and sends what waits `debounceMs` after the last new
   * change: a message reaches the others in the debounce plus a round, not up to a look later.
   */
  private startLocalWatch(): void {
    this.stopLocalWatch()
    this.outboxSeen = -1
    const check = () => {
      if (this.closed || !this.engine || this.state === 'offline' || this.state === 'error') return
      // A reply still streaming is not sent yet: it counts once it is finished.
      const count = this.deps.db.first(readyToSend(this.deps.db))!.n
      if (count > 0 && count !== this.outboxSeen) {
        this.outboxSeen = count
        this.schedule(this.debounce())
        this.emit()
      } else if (count === 0) this.outboxSeen = -1
    }
    this.localTimer = setInterval(check, this.deps.localCheckMs ?? 2000)
    this.localTimer.unref?.()
    this.stopWrites = this.deps.watchWrites?.(() => {
      if (this.writeCheck) return
      // After the statement's own transaction: a burst of writes is looked at once.
      this.writeCheck = setTimeout(() => {
        this.writeCheck = undefined
        check()
      }, 20)
      this.writeCheck.unref?.()
    })
  }

  /**
   * Quiet time after a local change before it is sent: a burst of edits goes as one segment. Where
   * the store pushes, the other devices see a change as soon as it is sent, so it is shorter there
   * (a message on A shows on B within 2 s over a real network).
   */
  private debounce(): number {
    return this.deps.debounceMs ?? (this.stopWatch ? 500 : 1500)
  }

  private stopLocalWatch(): void {
    clearInterval(this.localTimer)
    clearTimeout(this.writeCheck)
    this.writeCheck = undefined
    this.stopWrites?.()
    this.stopWrites = undefined
  }

  private schedule(ms: number): void {
    if (this.closed || !this.engine) return
    clearTimeout(this.timer)
    this.timer = setTimeout(() => void this.now().catch(() => undefined), ms)
    this.timer.unref?.()
  }

  /** One round now (or right after the running one); resolves when it is done. */
  async now(): Promise<SyncStatus> {
    await this.ready()
    if (this.restoring) return this.status()
    if (!this.saved()) throw appError('SyncNotSetUp', 'Sync is not set up on this device.')
    if (this.state === 'locked') throw appError('SyncNotSetUp', 'Type the sync passphrase on this device first (Settings → Sync).')
    if (this.state === 'paused') return this.status()
    if (!this.engine) {
      await this.connect(this.saved()!)
      if (!this.engine) return this.status()
    }
    // A round asked for during another starts after it: it must see changes the running one may have missed.
    while (this.running) await this.running
    this.running = this.round().finally(() => (this.running = undefined))
    await this.running
    return this.status()
  }

  private async round(): Promise<void> {
    const engine = this.engine
    if (!engine || this.closed || this.restoring) return
    clearTimeout(this.timer)
    this.syncing = 0
    this.transfer = undefined
    this.setState('syncing')
    try {
      await this.keepKeysFile()
      const result = await engine.round()
      // What it sent left the outbox: the next change is new whatever the count then.
      this.outboxSeen = -1
      for (const key of result.tampered) this.tampered.add(key)
      // A refused blob fetched whole since (a device that has it wrote it again): no longer named.
      for (const key of result.fixed ?? []) this.tampered.delete(key)
      this.missing = result.missing
      await this.forgetDeleted(result.listed)
      this.devicesList = result.devices
      this.lastSyncedAt = this.clock.now()
      this.nextRetryAt = undefined
      this.failures = 0
      if (result.merge.applied || result.merge.recovered || result.merge.conflicts || !this.lastMerge)
        this.lastMerge = { applied: result.merge.applied, conflicts: result.merge.conflicts, recovered: result.merge.recovered, at: this.lastSyncedAt }
      this.idleRounds = result.merge.applied || result.pushed ? 0 : this.idleRounds + 1
      this.syncing = undefined
      this.transfer = undefined
      this.setState('idle')
      if (!this.store?.watch || !this.stopWatch) {
        // Polling backs off while nothing changes, up to four times the interval.
        const poll = this.deps.pollMs ?? 15_000
        this.schedule(Math.min(poll * 2 ** Math.min(this.idleRounds, 2), poll * 4))
      } else this.schedule(5 * 60_000)
    } catch (error) {
      this.syncing = undefined
      this.transfer = undefined
      this.failed(error)
    }
  }

  /**
   * Puts the store's key file back when it is gone (deleted by hand, lost by a program carrying the
   * folder). Without it, a device set up next would make a key file of its own: same passphrase,
   * another salt, another key, and every device would refuse the other's objects. It is created
   * only where absent, so a key file another device wrote meanwhile stays.
   */
  private async keepKeysFile(): Promise<void> {
    const saved = this.saved()
    if (!saved || !this.store || !this.key) return
    const present = await keysFile(this.store)
    if (!present) {
      if (saved.keysFile && (await this.store.create(KEYS_OBJECT, Buffer.from(saved.keysFile, 'utf8')))) this.tampered.delete(KEYS_OBJECT)
      return
    }
    let matches: boolean | undefined
    try {
      matches = SyncService.keyMatches(present, this.key)
    } catch {
      // Cut short (a program carrying the folder is still copying it) or not one this version reads: looked at again next round.
    }
    // Another key's file (replaced, or made by a device set up while it was gone): a device set up
    // now would be refused the passphrase, or get that other key. Named; deleted there, this
    // device puts its own back at the next round.
    if (matches === false) this.tampered.add(KEYS_OBJECT)
    if (!matches) return
    this.tampered.delete(KEYS_OBJECT)
    if (!saved.keysFile) this.save({ ...saved, keysFile: Buffer.from(present).toString('utf8') })
  }

  /**
   * Refused objects stay named until they are gone from the store: deleting them there is the fix
   * the status gives. The round's own listing answers for what it listed; other folders are listed here.
   */
  private async forgetDeleted(listed: RoundResult['listed']): Promise<void> {
    if (this.tampered.size === 0 || !this.store) return
    const present = new Set(listed.keys)
    const folders = new Set([...this.tampered].map((key) => key.slice(0, key.lastIndexOf('/') + 1)))
    for (const folder of folders) if (!listed.folders.some((whole) => folder.startsWith(whole))) for (const { key } of await this.store.list(folder)) present.add(key)
    for (const key of this.tampered) if (!present.has(key)) this.tampered.delete(key)
  }

  private failed(error: unknown): void {
    // This device's own database or disk failing (full, read-only) is named as such, not as the
    // store's failure. Only SQLite's errors and a full disk: a raw network error code must not read as the data folder's.
    const code = (error as { code?: unknown } | undefined)?.code
    const local = typeof code === 'string' && (code.startsWith('SQLITE_') || code === 'ENOSPC' || code === 'EDQUOT')
    const shown = syncErrorOf(local ? toStoreError(error, this.deps.dataDir) : error)
    if (error instanceof WrongPassphrase) {
      // The store's key changed under us (set up again elsewhere): nothing is merged until the passphrase is typed.
      this.key = undefined
      void this.deps.secrets.delete(syncKeyName(this.deviceId())).catch(() => undefined)
      void this.disconnectStore()
      return this.setState('locked', shown)
    }
    if (error instanceof DeviceForgotten) {
      // Not retried: nothing changes until the user sets sync up again here.
      clearTimeout(this.timer)
      this.nextRetryAt = undefined
      return this.setState('error', shown)
    }
    if (!(error instanceof SyncStoreError)) logger.warn('sync', 'a sync round failed', error)
    this.failures++
    const wait = Math.min((this.deps.retryMs ?? 5_000) * 2 ** (this.failures - 1), this.deps.maxRetryMs ?? 5 * 60_000)
    this.nextRetryAt = this.clock.now() + wait
    this.setState(error instanceof SyncStoreError && error.transient ? 'offline' : 'error', shown)
    clearTimeout(this.timer)
    this.timer = setTimeout(() => {
      if (this.engine) void this.now().catch(() => undefined)
      else if (this.saved()) void this.connect(this.saved()!)
    }, wait)
    this.timer.unref?.()
  }

  // ---- set-up and changes

  private refuseRemote(): void {
    if (!this.deps.mayChange())
      throw appError('SyncUnavailable', 'With an access password, browser mode cannot set up sync: a store address or folder is a resource of the host. Set it up in the desktop app or the command-line tool.')
  }

  /** Reaches the store and checks it can be written; returns how many objects it holds. */
  async test(config: SyncStoreConfig, secret?: string): Promise<{ ok: true; objects: number }> {
    this.refuseRemote()
    let store: SyncStore | undefined
    try {
      store = await this.deps.openStore(config, secret ?? (await this.deps.secrets.readForRuntime(syncSecretName(this.deviceId())).catch(() => undefined)))
      await store.test()
      const objects = (await store.list('segments/')).length + (await store.list('meta/')).length
      return { ok: true, objects }
    } catch (error) {
      throw toAppError(error)
    } finally {
      await store?.close().catch(() => undefined)
    }
  }

  /**
   * Sets sync up with a store (again). The stamps this device holds are kept: they are the times
   * its changes were made. The same store it left with Disconnect: it goes on as the same device.
   * Another store: a new device id there, and everything it holds is sent with those stamps.
   */
  async setup(input: SyncSetup): Promise<SyncStatus> {
    this.refuseRemote()
    const secret = input.secret ?? (await this.deps.secrets.readForRuntime(syncSecretName(this.deviceId())).catch(() => undefined))
    let store: SyncStore | undefined
    let key: Buffer
    const previous = this.saved()
    const sameStore = previous !== undefined && JSON.stringify(previous.store) === JSON.stringify(input.store)
    let continuing: boolean
    try {
      store = await this.deps.openStore(input.store, secret)
      await store.test()
      key = await this.keyFor(store, input.passphrase)
      continuing = sameStore || (await this.holdsHistory(store, key))
    } catch (error) {
      await store?.close().catch(() => undefined)
      throw toAppError(error)
    }
    await store.close().catch(() => undefined)
    // From here this set-up is what holds: a connection still under way gives up.
    this.generation++
    await this.disconnectStore()
    const control = this.control()
    const old = control.device_id
    // A store that does not hold this device's history as it left it (another store, or a first
    // set-up) gets a new device id and everything this device holds, with the stamps it has.
    const deviceId = continuing && old ? old : this.freshDeviceId()
    if (deviceId !== old) this.log.restartHistory()
    this.deps.db.runUnwatched(this.deps.db.q.updateTable('sync_control').set({ device_id: deviceId, device_name: input.deviceName ?? control.device_name ?? hostname() }).where('id', '=', 1))
    if (secret !== undefined) await this.deps.secrets.set(syncSecretName(deviceId), secret)
    await this.deps.secrets.set(syncKeyName(deviceId), key.toString('base64'))
    if (old && old !== deviceId) {
      await this.deps.secrets.delete(syncKeyName(old)).catch(() => undefined)
      await this.deps.secrets.delete(syncSecretName(old)).catch(() => undefined)
    }
    this.clock.device = deviceId
    const scope = { ...(previous?.scope ?? DEFAULT_SCOPE), ...input.scope }
    this.save({ store: input.store, scope, paused: false })
    this.key = key
    this.tampered.clear()
    this.missing = []
    this.log.enable()
    if (scope.apiKeys && this.deps.apiKeys) noteAllKeys(this.deps.db, this.deps.apiKeys.names())
    await this.connect(this.saved()!)
    return this.status()
  }

  /**
   * Whether `store` holds this device's history as it left it (set up again after Disconnect):
   * its device record, sealed with this key, and its newest segment the last one it recorded
   * writing (or the next, whose answer was lost). Then it goes on as the same device: same id,
   * same segment numbers, what it merged kept. Anything else is another history.
   */
  private async holdsHistory(store: SyncStore, key: Buffer): Promise<boolean> {
    const id = this.deviceId()
    if (!id) return false
    const record = deviceKey(id)
    try {
      const bytes = await store.get(record)
      if (!bytes || open(key, record, bytes).header.device !== id) return false
    } catch (error) {
      // Not a record this device wrote (one too large to read, or a link, included); the store failing is the store's error.
      if (error instanceof SyncStoreError && !(error instanceof RefusedObject)) throw error
      return false
    }
    const next = this.control().next_seq
    const newest = Math.max(0, ...(await store.list(`segments/${id}/`)).map((o) => segmentSeq(o.key)))
    return newest === next - 1 || newest === next
  }

  /** The key of a store: fixed by the first device (create-only), checked for every other. */
  private async keyFor(store: SyncStore, passphrase: string): Promise<Buffer> {
    const existing = await keysFile(store)
    if (!existing) {
      const fresh = await newKeys(passphrase, this.deps.kdf)
      if (await store.create(KEYS_OBJECT, Buffer.from(JSON.stringify(fresh.file), 'utf8'))) return fresh.key
    }
    const bytes = existing ?? (await keysFile(store))
    if (!bytes) throw new SyncStoreError('SyncStoreFailed', 'The key file of the store vanished while setting up.')
    try {
      return await unlockKeys(parseKeysFile(bytes), passphrase)
    } catch (error) {
      if (error instanceof WrongPassphrase) throw appError('SyncWrongPassphrase', 'The sync passphrase is not the one this store was set up with; nothing was merged.')
      // Never replaced with a key of this device's own: every device's data is sealed with the first one's.
      if (error instanceof KeysFileIncomplete)
        throw new SyncStoreError(
          'SyncStoreInvalid',
          `The store's key file (${KEYS_OBJECT}) is empty or cut short; nothing was merged. If another sync program carries this folder, it may still be copying the file.`,
          'Wait until that program has finished, then try again. If it stays like this, copy meta/keys.json from this folder on a device where sync works.'
        )
      throw new SyncStoreError('SyncStoreInvalid', `The store's key file (${KEYS_OBJECT}) is not one this version understands; nothing was merged.`, 'Update Switchboard on this device, or choose another store or folder.')
    }
  }

  async unlock(passphrase: string): Promise<SyncStatus> {
    const saved = this.saved()
    if (!saved) throw appError('SyncNotSetUp', 'Sync is not set up on this device.')
    let store: SyncStore | undefined
    try {
      store = await this.deps.openStore(saved.store, await this.deps.secrets.readForRuntime(syncSecretName(this.deviceId())).catch(() => undefined))
      const bytes = await keysFile(store)
      if (!bytes) throw new SyncStoreError('SyncStoreInvalid', 'The store has no key file any more.', 'Set up sync again in Settings → Sync.')
      this.key = await this.keyFor(store, passphrase)
    } catch (error) {
      throw toAppError(error)
    } finally {
      await store?.close().catch(() => undefined)
    }
    await this.deps.secrets.set(syncKeyName(this.deviceId()), this.key.toString('base64'))
    await this.connect(saved)
    return this.status()
  }

  async update(input: { paused?: boolean; scope?: Partial<SyncScope>; deviceName?: string }): Promise<SyncStatus> {
    const saved = this.saved()
    if (!saved) throw appError('SyncNotSetUp', 'Sync is not set up on this device.')
    if (input.scope) this.refuseRemote()
    // What follows connects again, pauses or stays locked: a connection still under way gives up (its config is the old one).
    this.generation++
    if (input.deviceName) this.deps.db.runUnwatched(this.deps.db.q.updateTable('sync_control').set({ device_name: input.deviceName }).where('id', '=', 1))
    const next: Saved = { ...saved, scope: { ...saved.scope, ...input.scope }, paused: input.paused ?? saved.paused }
    // A kind turned on again: what other devices sent while this one was not taking it was read
    // and passed over, so the history is read again once (merging is idempotent: what is held
    // already changes nothing). What this device wrote meanwhile waited, stamped, and goes out now.
    const widened = (Object.keys(next.scope) as Array<keyof SyncScope>).some((kind) => next.scope[kind] && !saved.scope[kind])
    if (widened) {
      await this.disconnectStore()
      // API keys live in the keychain, not in a captured table: this device's are noted to go out.
      if (next.scope.apiKeys && !saved.scope.apiKeys && this.deps.apiKeys) noteAllKeys(this.deps.db, this.deps.apiKeys.names())
      this.deps.db.runUnwatched(this.deps.db.q.deleteFrom('sync_seen'))
    }
    if (!next.scope.apiKeys && saved.scope.apiKeys) this.deps.db.runUnwatched(this.deps.db.q.deleteFrom('sync_outbox').where('tbl', '=', API_KEYS))
    this.save(next)
    if (this.state === 'locked') return this.status()
    if (next.paused) {
      await this.disconnectStore()
      this.setState('paused')
    } else await this.connect(next)
    return this.status()
  }

  async devices(): Promise<SyncDevice[]> {
    if (this.engine) {
      try {
        this.devicesList = await this.engine.devices()
      } catch {
        // Offline: the list as last read.
      }
    }
    return this.devicesList
  }

  /** This device's edits that later ones from other devices replaced (the newest 100), newest first. */
  replacedEdits(): SyncReplacedEdit[] {
    const names = new Map(this.devicesList.map((d) => [d.id, d.name]))
    return this.log.replacedEdits().map((edit) => ({ ...edit, keptBy: names.get(edit.keptBy) ?? edit.keptBy }))
  }

  /**
   * Brings a replaced edit back as an edit made now on this device: captured like any other, so
   * it is stamped, sent, and wins on every device as the latest edit. Works while sync is paused
   * or offline (it goes out when sync does).
   */
  bringBack(id: number): SyncReplacedEdit[] {
    let done: ReturnType<ChangeLog['bringBack']>
    try {
      done = this.log.bringBack(id)
    } catch (error) {
      // A full or read-only disk, named with its fix (the store's own wording).
      throw toStoreError(error, this.deps.dataDir)
    }
    if (!done) throw new AppErrorException({ errorType: 'NotFound', status: 404, message: 'That edit is no longer in the list; nothing was changed.' })
    if (done === 'gone') throw new AppErrorException({ errorType: 'NotFound', status: 404, message: 'What that edit belonged to was deleted since; nothing was changed.' })
    if (done === 'dangling') throw new AppErrorException({ errorType: 'NotFound', status: 404, message: 'That value names something deleted since (an agent); nothing was changed.' })
    this.deps.applied?.(new Set([done.table]))
    if (this.engine && this.state !== 'paused') this.schedule(this.debounce())
    return this.replacedEdits()
  }

  /** Forgets another device gone for good (not this one: that is Disconnect). */
  async forgetDevice(deviceId: string): Promise<SyncDevice[]> {
    this.refuseRemote()
    await this.ready()
    if (!this.saved()) throw appError('SyncNotSetUp', 'Sync is not set up on this device.')
    if (deviceId === this.deviceId()) throw appError('ValidationError', 'This is this device: to stop syncing here, use Disconnect.')
    if (!this.engine) await this.connect(this.saved()!)
    if (!this.engine) throw appError('SyncNotSetUp', 'Type the sync passphrase on this device first (Settings → Sync).')
    // After the running round, so its device list does not overwrite this one.
    while (this.running) await this.running
    let devices: SyncDevice[] | undefined
    try {
      devices = await this.engine.forget(deviceId)
    } catch (error) {
      throw toAppError(error)
    }
    if (!devices) throw appError('ValidationError', `No device ${deviceId} is in the store's list.`)
    this.devicesList = devices
    this.emit()
    return this.devicesList
  }

  /** Before a restore replaces the data (store.restoring): the running round ends and no other starts. */
  async holdForRestore(): Promise<void> {
    this.restoring = true
    this.idBeforeRestore = this.deviceId()
    // A round over a slow link can last minutes: the restore is refused rather than left waiting
    // (the round goes on; `afterRestore(false)` connects again once it has ended).
    if (!(await settledWithin(this.disconnectStore(), this.deps.restoreWaitMs ?? RESTORE_WAIT_MS))) throw appError('ImportBusy', 'A sync round did not end in time; nothing was restored. Try again when Settings → Sync says it is synced.')
  }

  /**
   * After a restore: sync goes on as the restored data says (set up or not, with which store and
   * device), with what it holds checked against the store before the first round (`connect`).
   */
  async afterRestore(replaced: boolean): Promise<void> {
    this.restoring = false
    if (this.closed) return
    if (!replaced) {
      this.idBeforeRestore = undefined
      // As before the restore, once a round that outlasted the wait has ended.
      this.resumeAfterRestore()
      return
    }
    const saved = this.saved()
    const before = this.idBeforeRestore
    this.idBeforeRestore = undefined
    // The keychain entries of an id the restored data does not have are no one's now.
    if (before && before !== this.deviceId()) {
      await this.deps.secrets.delete(syncKeyName(before)).catch(() => undefined)
      await this.deps.secrets.delete(syncSecretName(before)).catch(() => undefined)
    }
    this.key = undefined
    this.tampered.clear()
    this.missing = []
    this.lastMerge = undefined
    this.clock.device = this.deviceId() || 'unset'
    if (saved) this.save({ ...saved, restored: true })
    this.resumeAfterRestore()
  }

  /**
   * Not awaited: the restore answers now; reaching the store (and its check) is the status's to
   * tell. Calls that act on sync wait for it as they wait for start-up (`ready`), so no second
   * connection (or second check) starts beside it.
   */
  private resumeAfterRestore(): void {
    const resumed = this.resume()
    this.started = resumed
    resumed.catch((error: unknown) => logger.warn('sync', 'sync did not resume after a restore', error))
  }

  /** A new device id for this data, with everything it holds to send again and the whole store to read (`restartHistory`). */
  private becomeNewDevice(): Promise<void> {
    return this.newDeviceId(() => this.log.restartHistory())
  }

  /**
   * Moves this device to a new id with the same key and store secret: the keychain entries are
   * written under the new id first, the id changes with `reset` in one transaction (a new id
   * never goes on with the old one's segment numbers), then the old entries go.
   */
  private async newDeviceId(reset: () => void): Promise<void> {
    const old = this.deviceId()
    const id = this.freshDeviceId()
    const secret = await this.deps.secrets.readForRuntime(syncSecretName(old)).catch(() => undefined)
    if (secret !== undefined) await this.deps.secrets.set(syncSecretName(id), secret)
    await this.deps.secrets.set(syncKeyName(id), this.key!.toString('base64'))
    this.deps.db.transaction(() => {
      reset()
      this.deps.db.runUnwatched(this.deps.db.q.updateTable('sync_control').set({ device_id: id }).where('id', '=', 1))
    })
    this.clock.device = id
    await this.deps.secrets.delete(syncKeyName(old)).catch(() => undefined)
    await this.deps.secrets.delete(syncSecretName(old)).catch(() => undefined)
  }

  /**
   * Joins again as a new device after another device forgot this one: a new device id (the old
   * one stays forgotten), the same key and store, and everything this device has merged kept, so
   * deletions made meanwhile still arrive here (they win over the rows it holds) and what it wrote
   * meanwhile is sent (Disconnect and set up again would go on as the forgotten device and stop the same way).
   */
  async rejoin(): Promise<SyncStatus> {
    this.refuseRemote()
    await this.ready()
    const saved = this.saved()
    if (!saved) throw appError('SyncNotSetUp', 'Sync is not set up on this device.')
    if (!this.key) throw appError('SyncNotSetUp', 'Type the sync passphrase on this device first (Settings → Sync).')
    await this.disconnectStore()
    await this.newDeviceId(() => this.deps.db.runUnwatched(this.deps.db.q.updateTable('sync_control').set({ next_seq: 1 }).where('id', '=', 1)))
    this.setState('idle')
    await this.connect(saved)
    return this.status()
  }

  /**
   * Stops syncing here; the store and the other devices are untouched. The stamps stay, and so
   * does change capture (each change noted with its time): set up again, this device sends only
   * what changed here, stamped when it changed, so what it held never overwrites what others
   * deleted or edited meanwhile. Its device id stays for that set-up (shown only while set up).
   */
  async disconnect(): Promise<SyncStatus> {
    this.refuseRemote()
    this.generation++
    await this.disconnectStore()
    const id = this.deviceId()
    this.save(undefined)
    await this.deps.secrets.delete(syncKeyName(id)).catch(() => undefined)
    await this.deps.secrets.delete(syncSecretName(id)).catch(() => undefined)
    this.key = undefined
    this.tampered.clear()
    this.missing = []
    this.lastMerge = undefined
    this.devicesList = []
    this.nextRetryAt = undefined
    this.setState('off')
    return this.status()
  }

  private async disconnectStore(): Promise<void> {
    clearTimeout(this.timer)
    this.stopLocalWatch()
    if (this.running) await this.running.catch(() => undefined)
    await this.stopWatch?.().catch(() => undefined)
    this.stopWatch = undefined
    await this.store?.close().catch(() => undefined)
    this.store = undefined
    this.engine = undefined
  }

  async close(): Promise<void> {
    this.closed = true
    await this.disconnectStore()
    for (const listener of this.listeners) listener(this.status())
    this.listeners.clear()
  }

  /** For tests and the key check: whether a key file accepts the current key. */
  static keyMatches(bytes: Uint8Array, key: Buffer): boolean {
    return checkKey(parseKeysFile(bytes), key)
  }
}

/** The store's key file. One too large to read was not written by Switchboard (it is a few hundred bytes). */
async function keysFile(store: SyncStore): Promise<Uint8Array | undefined> {
  try {
    return await store.get(KEYS_OBJECT)
  } catch (error) {
    if (!(error instanceof ObjectTooLarge)) throw error
    throw new SyncStoreError(
      'SyncStoreInvalid',
      `The store's key file (${KEYS_OBJECT}) is far larger than the few hundred bytes Switchboard writes: someone with access to the store replaced it. Nothing was merged.`,
      `Put ${KEYS_OBJECT} back from the store's version history or a backup, or set up sync with a new, empty store.`
    )
  }
}

/** The first few of a list of store keys, and how many more: a store with thousands planted in it must not make a status line of them. */
function named(keys: string[], shown = 5): string {
  return keys.length <= shown ? keys.join(', ') : `${keys.slice(0, shown).join(', ')} and ${(keys.length - shown).toLocaleString('en')} more`
}
