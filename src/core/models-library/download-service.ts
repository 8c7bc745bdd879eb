import { randomUUID } from 'node:crypto'
import { mkdir, readdir, readFile, rename, rm, statfs, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { PullAggregator } from '../local/pull-aggregator'
import { TransferRate } from '../progress/transfer-rate'
import { ProgressFeed } from '../progress/progress-feed'
import { logged } from '../log/logger'
import { AppErrorException } from '../../shared/errors/app-error'
import { isFinalDownloadPhase, type DownloadPhase, type DownloadSnapshot, type ModelSource } from '../../shared/models-library/types'
import { bytesOnDisk, downloadFile, DownloadError, partFiles, removePartial, type DownloadNote, type FileTarget } from './file-download'
import { checkWritable, pathInside } from './safe-path'

/** What to fetch for one model, resolved from the hub's tree or the registry's manifest. */
export interface DownloadPlan {
  ref: string
  source: ModelSource
  files: Array<Omit<FileTarget, 'headers'>>
  /** The file the engine is given (a split model's first part). */
  mainPath: string
  /** Sent with each request at run time (a token is never written to disk). */
  auth?: 'hf'
  /** Written once every file is verified (an Ollama manifest, which makes the model visible). */
  finalize?: { path: string; content: string }
}

export interface DownloadServiceOptions {
  /** Where models and the list of unfinished downloads live (`<dataDir>/models`). */
  modelsDir: string
  fetch?: typeof fetch
  /** Minimum gap between two published updates of one download (ms). */
  throttleMs?: number
  /** Longest gap between two updates while a 5 % step takes longer than this (ms; 10 s by default, so a download slowed down by a busy machine still sends about twenty). */
  heartbeatMs?: number
  retryDelayMs?: number
  /** Request headers for a plan's `auth` (the Hugging Face token from the keychain). */
  authHeaders?: (auth: 'hf') => Promise<Record<string, string>>
  diskSpace?: (path: string) => Promise<number | undefined>
  retainMs?: number
}

class Paused extends Error {}

interface Job {
  id: string
  plan: DownloadPlan
  phase: DownloadPhase
  agg: PullAggregator
  rate: TransferRate
  resumedBytes: number
  notes: string[]
  controller?: AbortController
  running?: Promise<void>
  feed: ProgressFeed<DownloadSnapshot>
  last: DownloadSnapshot
  lastPublishAt: number
  publishedBytes: number
  publishTimer?: NodeJS.Timeout
  publishTimerKind?: 'step' | 'heartbeat'
  startedAt: number
  finishedAt?: number
  error?: { code: string; message: string }
  disk?: { path: string; freeBytes: number }
  /** Paused by the user (stays paused across restarts) rather than interrupted. */
  userPaused: boolean
}

interface Inflight {
  /** The signal of the download that started the transfer: when it stops, followers start their own. */
  owner: AbortSignal
  promise: Promise<void>
  bytes: number
  listeners: Set<(bytes: number) => void>
}

const LIST_DIR = 'downloads'
const LEGACY_LIST_FILE = 'downloads.json'

interface SavedDownload {
  id: string
  plan: DownloadPlan
  userPaused: boolean
  /** The process running it, while it runs. */
  pid?: number
}

/** Ids are our UUIDs; anything else read from disk is never made into a path outside the folder. */
const safeId = (id: string) => id.replace(/[^A-Za-z0-9-]/g, '_')

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: alive, another user's.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
/** Share of the total that makes an update worth sending before the heartbeat. */
const PUBLISH_STEP = 0.05

/**
 * Model downloads owned by the core: several at once, each aggregated over its files into
 * one progress that only moves forward (speed, time left), published at most every
 * `throttleMs` and always at its end. Unfinished downloads are listed in
 * `<modelsDir>/downloads/` (a file each) so a restart (or a crash) picks them up where their bytes
 * stopped. The same file asked for twice is fetched once: the second download follows the
 * first's transfer.
 */
export class DownloadService {
  private readonly jobs = new Map<string, Job>()
  private readonly inflight = new Map<string, Inflight>()
  private readonly throttleMs: number
  private readonly heartbeatMs: number
  private closed = false
  private saving = Promise.resolve()
  /** Ids whose files this process wrote (and so removes once they finish). */
  private saved = new Set<string>()

  constructor(private readonly options: DownloadServiceOptions) {
    this.throttleMs = options.throttleMs ?? 110
    this.heartbeatMs = options.heartbeatMs ?? 10_000
  }

  /**
   * Starts a download, or returns the one already known for the same model. The first
   * snapshot already counts the bytes on disk: a resumed download never shows 0 %.
   */
  async start(plan: DownloadPlan): Promise<DownloadSnapshot> {
    if (this.closed) throw new AppErrorException({ errorType: 'InternalError', message: 'Switchboard is shutting down.' })
    const onDisk = await Promise.all(plan.files.map((f) => bytesOnDisk(f.dest, f.sizeBytes)))
    for (const job of this.jobs.values()) {
      if (job.plan.ref !== plan.ref) continue
      if (!isFinalDownloadPhase(job.phase) && job.phase !== 'paused') return job.last
      this.jobs.delete(job.id)
      if (job.phase === 'paused') return this.launch({ ...job, plan, userPaused: false })
    }
    const job = this.newJob(randomUUID(), plan)
    this.seed(job, onDisk)
    return this.launch(job)
  }

  private seed(job: Job, onDisk: number[]): void {
    const files = job.plan.files
    job.agg.seed(files.map((f, i) => ({ digest: f.dest, completedBytes: onDisk[i]!, totalBytes: f.sizeBytes, resumedBytes: 0, done: false })))
    job.resumedBytes = onDisk.reduce((a, b) => a + b, 0)
  }

  private newJob(id: string, plan: DownloadPlan): Job {
    const job: Job = {
      id,
      plan,
      phase: 'queued',
      agg: new PullAggregator(),
      rate: new TransferRate(),
      resumedBytes: 0,
      notes: [],
      feed: new ProgressFeed(),
      last: undefined as unknown as DownloadSnapshot,
      lastPublishAt: 0,
      publishedBytes: 0,
      startedAt: Date.now(),
      userPaused: false
    }
    job.last = this.snapshot(job)
    return job
  }

  private launch(job: Job): DownloadSnapshot {
    this.jobs.set(job.id, job)
    job.phase = 'checking'
    job.finishedAt = undefined
    job.error = undefined
    job.userPaused = false
    job.controller = new AbortController()
    job.last = this.snapshot(job)
    job.running = this.run(job)
    void this.save()
    return job.last
  }

  private async run(job: Job): Promise<void> {
    const signal = job.controller!.signal
    const files = job.plan.files
    try {
      const onDisk = await Promise.all(files.map((f) => bytesOnDisk(f.dest, f.sizeBytes)))
      const fresh = new PullAggregator()
      fresh.seed(files.map((f, i) => ({ digest: f.dest, completedBytes: onDisk[i]!, totalBytes: f.sizeBytes, resumedBytes: 0, done: false })))
      // A resumed run keeps its bar where it was: the floor of the fraction carries over.
      if (job.agg.totalBytes === 0) job.agg = fresh
      else for (let i = 0; i < files.length; i++) this.report(job, files[i]!.dest, onDisk[i]!, files[i]!.sizeBytes)
      job.resumedBytes = onDisk.reduce((a, b) => a + b, 0)
      job.rate = new TransferRate()
      job.rate.add(performance.now(), 0)
      // A plan read back from disk (or made from a hub's names) writes nowhere but the models folder.
      for (const f of files) await checkWritable(this.options.modelsDir, f.dest, partFiles(f.dest))
      if (job.plan.finalize) await checkWritable(this.options.modelsDir, job.plan.finalize.path, [`${job.plan.finalize.path}.tmp`])
      const left = fresh.totalBytes - job.resumedBytes
      const free = await (this.options.diskSpace ?? freeSpace)(this.options.modelsDir)
      if (free !== undefined) {
        job.disk = { path: this.options.modelsDir, freeBytes: free }
        if (left > free) {
          throw new DownloadError(
            `Not enough disk space: this model needs ${gb(left)} more and ${this.options.modelsDir} has ${gb(free)} free. Free some space, then start the download again.`,
            'diskFull'
          )
        }
      }
      job.phase = 'downloading'
      this.publish(job)
      const headers = job.plan.auth && this.options.authHeaders ? await this.options.authHeaders(job.plan.auth) : {}
      for (const file of files) {
        signal.throwIfAborted()
        await this.fetchOnce(job, { ...file, headers }, signal)
      }
      if (job.plan.finalize) {
        await mkdir(dirname(job.plan.finalize.path), { recursive: true })
        await writeFile(`${job.plan.finalize.path}.tmp`, job.plan.finalize.content)
        await rename(`${job.plan.finalize.path}.tmp`, job.plan.finalize.path)
      }
      job.phase = 'success'
    } catch (error) {
      if (signal.reason instanceof Paused) {
        job.phase = 'paused'
      } else if (signal.aborted) {
        job.phase = 'cancelled'
        await this.removeUnshared(job, signal).catch(logged('models', 'removing a cancelled download'))
      } else {
        job.phase = 'error'
        job.error = error instanceof DownloadError ? { code: error.code, message: error.message } : { code: 'internal', message: error instanceof Error ? error.message : String(error) }
      }
    }
    job.finishedAt = job.phase === 'paused' ? undefined : Date.now()
    this.publish(job)
    await this.save()
    if (isFinalDownloadPhase(job.phase)) {
      const expiry = setTimeout(() => this.jobs.get(job.id) === job && job.phase === 'success' && this.jobs.delete(job.id), this.options.retainMs ?? 10 * 60_000)
      expiry.unref?.()
    }
  }

  /** Removes a cancelled download's partial files, once their transfers stopped, unless another download still wants them. */
  private async removeUnshared(job: Job, signal: AbortSignal): Promise<void> {
    for (const f of job.plan.files) {
      const flight = this.inflight.get(f.dest)
      if (flight?.owner === signal) await flight.promise.catch(() => undefined)
      const wanted = [...this.jobs.values()].some((j) => j !== job && !isFinalDownloadPhase(j.phase) && j.plan.files.some((g) => g.dest === f.dest))
      if (!wanted) await this.removePartial(f.dest)
    }
  }

  /** Removes a file's partial bytes, never anything outside the models folder (a hostile record's). */
  private async removePartial(dest: string): Promise<void> {
    try {
      await checkWritable(this.options.modelsDir, dest, partFiles(dest))
    } catch (error) {
      logged('models', 'removing a partial download')(error)
      return
    }
    await removePartial(dest)
  }

  /** One transfer per file however many downloads want it; each follows its bytes. */
  private async fetchOnce(job: Job, file: FileTarget, signal: AbortSignal): Promise<void> {
    for (;;) {
      const flight = this.inflight.get(file.dest)
      try {
        return await this.follow(job, file, signal, flight)
      } catch (error) {
        // The transfer we followed was paused or cancelled by its own download, not ours: take it over.
        if (flight && flight.owner.aborted && !signal.aborted) continue
        throw error
      }
    }
  }

  private async follow(job: Job, file: FileTarget, signal: AbortSignal, existing: Inflight | undefined): Promise<void> {
    const follow = (bytes: number) => this.report(job, file.dest, bytes, file.sizeBytes)
    let flight = existing
    if (!flight) {
      const created: Inflight = { owner: signal, promise: Promise.resolve(), bytes: 0, listeners: new Set() }
      created.promise = downloadFile(
        file,
        {
          progress: (bytes) => {
            created.bytes = bytes
            for (const l of created.listeners) l(bytes)
          },
          note: (note, detail) => this.note(file.dest, note, detail)
        },
        { fetch: this.options.fetch, signal, retryDelayMs: this.options.retryDelayMs }
      ).finally(() => this.inflight.delete(file.dest))
      this.inflight.set(file.dest, created)
      flight = created
    }
    flight.listeners.add(follow)
    follow(flight.bytes)
    try {
      await raceAbort(flight.promise, signal)
    } finally {
      flight.listeners.delete(follow)
    }
  }

  private note(dest: string, note: DownloadNote, detail: string): void {
    if (note === 'retrying' || note === 'resumed') return
    const text = note === 'rangeIgnored' ? detail : `A damaged file was refused and downloaded again (${detail})`
    for (const job of this.jobs.values()) {
      if (job.plan.files.some((f) => f.dest === dest) && !job.notes.includes(text)) job.notes.push(text)
    }
  }

  private report(job: Job, dest: string, completed: number, total: number): void {
    job.agg.apply({ status: 'downloading', model: job.plan.ref, digest: dest, completed, total })
    this.schedulePublish(job)
  }

  pause(id: string): boolean {
    const job = this.jobs.get(id)
    if (!job || isFinalDownloadPhase(job.phase) || job.phase === 'paused') return false
    job.userPaused = true
    job.controller?.abort(new Paused('paused'))
    return true
  }

  resume(id: string): DownloadSnapshot {
    const job = this.jobs.get(id)
    if (!job) throw unknownDownload(id)
    if (job.phase === 'paused' || job.phase === 'error' || job.phase === 'cancelled') return this.launch(job)
    return job.last
  }

  /** Stops a download and removes its partial bytes (a paused one too). */
  async cancel(id: string): Promise<boolean> {
    const job = this.jobs.get(id)
    if (!job || job.phase === 'success' || job.phase === 'cancelled') return false
    if (job.phase === 'paused' || job.phase === 'error') {
      job.phase = 'cancelled'
      job.finishedAt = Date.now()
      await Promise.all(job.plan.files.map((f) => this.removePartial(f.dest)))
      this.publish(job)
      await this.save()
      return true
    }
    job.controller?.abort()
    await job.running
    return true
  }

  dismiss(id: string): boolean {
    const job = this.jobs.get(id)
    if (!job || !isFinalDownloadPhase(job.phase)) return false
    return this.jobs.delete(id)
  }

  list(): DownloadSnapshot[] {
    return [...this.jobs.values()].map((j) => j.last).sort((a, b) => Number(Boolean(a.finishedAt)) - Number(Boolean(b.finishedAt)) || b.startedAt - a.startedAt)
  }

  get(id: string): DownloadSnapshot | undefined {
    return this.jobs.get(id)?.last
  }

  /** Resolves when the download stops (done, failed, cancelled or paused). */
  async wait(id: string): Promise<DownloadSnapshot> {
    const job = this.jobs.get(id)
    if (!job) throw unknownDownload(id)
    await job.running
    return job.last
  }

  /** The current state, then each published update, ending when the download stops. */
  async *watch(id: string, signal?: AbortSignal): AsyncGenerator<DownloadSnapshot, DownloadSnapshot | undefined> {
    const job = this.jobs.get(id)
    if (!job) throw unknownDownload(id)
    return yield* job.feed.watch(job.last, (s) => isFinalDownloadPhase(s.phase) || s.phase === 'paused', signal)
  }

  /**
   * Picks up the downloads listed from an earlier run: those the user paused stay paused,
   * those a quit or a crash interrupted start again from their bytes on disk. A download
   * another live process is running (the app and the CLI on one data folder) is left to it.
   */
  async restore(): Promise<DownloadSnapshot[]> {
    const saved: SavedDownload[] = []
    const dir = join(this.options.modelsDir, LIST_DIR)
    let names: string[] = []
    try {
      names = (await readdir(dir)).filter((n) => n.endsWith('.json'))
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') logged('models', 'reading the list of unfinished downloads')(error)
    }
    for (const name of names) {
      try {
        saved.push(JSON.parse(await readFile(join(dir, name), 'utf8')) as SavedDownload)
      } catch (error) {
        // A torn or foreign file: its bytes stay on disk, the download is started again by hand.
        logged('models', `reading the unfinished download ${name}`)(error)
      }
    }
    // The single list of earlier versions, read once and then replaced by a file per download.
    const legacy = join(this.options.modelsDir, LEGACY_LIST_FILE)
    try {
      const old = JSON.parse(await readFile(legacy, 'utf8')) as SavedDownload[]
      if (Array.isArray(old)) saved.push(...old.filter((o) => !saved.some((s) => s.id === o?.id)))
      await rm(legacy, { force: true })
    } catch {
      // No list from an earlier version.
    }
    const out: DownloadSnapshot[] = []
    for (const entry of saved) {
      if (!entry?.plan?.files || typeof entry.id !== 'string' || this.jobs.has(entry.id)) continue
      if (entry.pid !== undefined && entry.pid !== process.pid && isAlive(entry.pid)) continue
      const job = this.newJob(entry.id, entry.plan)
      this.seed(job, await Promise.all(entry.plan.files.map((f) => bytesOnDisk(f.dest, f.sizeBytes))))
      job.phase = 'paused'
      job.userPaused = entry.userPaused
      job.last = this.snapshot(job)
      this.jobs.set(job.id, job)
      out.push(entry.userPaused ? job.last : this.launch(job))
    }
    if (out.length > 0) await this.save()
    return out
  }

  /**
   * One file per unfinished download (`<modelsDir>/downloads/<id>.json`, replaced atomically),
   * so two processes on one data folder never overwrite each other's list: each writes and
   * removes only the files of its own downloads. A running download names its process.
   */
  private async save(): Promise<void> {
    const entries: SavedDownload[] = [...this.jobs.values()]
      .filter((j) => !isFinalDownloadPhase(j.phase) || j.phase === 'error')
      .map((j) => {
        const running = !isFinalDownloadPhase(j.phase) && j.phase !== 'paused'
        return { id: j.id, plan: j.plan, userPaused: j.userPaused || j.phase === 'error', ...(running ? { pid: process.pid } : {}) }
      })
    const dir = join(this.options.modelsDir, LIST_DIR)
    // One write at a time, in order: the last state wins.
    this.saving = this.saving
      .then(async () => {
        await mkdir(dir, { recursive: true })
        const now = new Set<string>()
        for (const entry of entries) {
          const path = pathInside(dir, `${safeId(entry.id)}.json`)
          await writeFile(`${path}.${process.pid}.tmp`, JSON.stringify(entry))
          await rename(`${path}.${process.pid}.tmp`, path)
          now.add(entry.id)
        }
        for (const id of this.saved) if (!now.has(id)) await rm(pathInside(dir, `${safeId(id)}.json`), { force: true })
        this.saved = now
      })
      .catch(logged('models', 'saving the list of unfinished downloads'))
    return this.saving
  }

  private schedulePublish(job: Job): void {
    // Updates follow the bar, not the clock: one per 5 % step (at most every `throttleMs`),
    // so a 2 GB download sends about twenty however long it takes. A step never waits behind
    // a pending heartbeat; the heartbeat only refreshes speed and time left when a step takes
    // longer than `heartbeatMs` (a slow connection).
    const moved = job.agg.totalBytes > 0 ? (job.agg.completedBytes - job.publishedBytes) / job.agg.totalBytes : 1
    const now = performance.now()
    if (moved >= PUBLISH_STEP) {
      const wait = job.lastPublishAt + this.throttleMs - now
      if (wait <= 0) return this.publish(job)
      if (job.publishTimer && job.publishTimerKind === 'step') return
      this.setPublishTimer(job, 'step', wait)
      return
    }
    if (job.publishTimer) return
    this.setPublishTimer(job, 'heartbeat', Math.max(0, job.lastPublishAt + this.heartbeatMs - now))
  }

  private setPublishTimer(job: Job, kind: 'step' | 'heartbeat', wait: number): void {
    if (job.publishTimer) clearTimeout(job.publishTimer)
    job.publishTimerKind = kind
    job.publishTimer = setTimeout(() => {
      job.publishTimer = undefined
      if (!isFinalDownloadPhase(job.phase)) this.publish(job)
    }, wait)
  }

  private publish(job: Job): void {
    if (job.publishTimer) {
      clearTimeout(job.publishTimer)
      job.publishTimer = undefined
    }
    job.lastPublishAt = performance.now()
    job.publishedBytes = job.agg.completedBytes
    job.rate.add(job.lastPublishAt, Math.max(0, job.agg.completedBytes - job.resumedBytes))
    job.last = this.snapshot(job)
    job.feed.publish(job.last)
  }

  private snapshot(job: Job): DownloadSnapshot {
    const agg = job.agg
    const moving = job.phase === 'downloading' || job.phase === 'checking'
    const bytesPerSecond = moving ? Math.round(job.rate.rate()) : 0
    const snap: DownloadSnapshot = {
      id: job.id,
      ref: job.plan.ref,
      source: job.plan.source,
      phase: job.phase,
      completedBytes: job.phase === 'success' ? agg.totalBytes : agg.completedBytes,
      totalBytes: agg.totalBytes,
      fraction: job.phase === 'success' ? 1 : agg.fraction(),
      bytesPerSecond,
      files: agg.layerDetail(),
      resumedBytes: job.resumedBytes,
      resumed: job.resumedBytes > 0,
      notes: [...job.notes],
      startedAt: job.startedAt,
      updatedAt: Date.now()
    }
    if (moving && bytesPerSecond > 0) snap.etaSeconds = Math.ceil((agg.totalBytes - agg.completedBytes) / bytesPerSecond)
    if (job.phase === 'success') snap.path = job.plan.mainPath
    if (job.disk) snap.disk = job.disk
    if (job.error) snap.error = job.error
    if (job.finishedAt) snap.finishedAt = job.finishedAt
    return snap
  }

  /** Stops every running download; their bytes stay for the next start. */
  async close(): Promise<void> {
    this.closed = true
    const running = [...this.jobs.values()].filter((j) => j.running && !isFinalDownloadPhase(j.phase) && j.phase !== 'paused')
    for (const job of running) job.controller?.abort(new Paused('closing'))
    await Promise.allSettled(running.map((j) => j.running))
    // Interrupted by the quit, not paused by the user: the next start resumes them.
    for (const job of running) job.userPaused = false
    await this.save()
  }
}

async function freeSpace(path: string): Promise<number | undefined> {
  try {
    await mkdir(path, { recursive: true })
    const s = await statfs(path)
    return s.bavail * s.bsize
  } catch {
    // Unknown free space: the download goes ahead and a full disk is reported when it happens.
    return undefined
  }
}

const gb = (bytes: number) => `${(bytes / 1e9).toFixed(bytes < 1e8 ? 3 : 1)} GB`

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error)
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error)
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort)
        resolve(v)
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(e as Error)
      }
    )
  })
}

const unknownDownload = (id: string) => new AppErrorException({ errorType: 'UnknownStream', status: 404, message: `No download has the id ${id}.` })
