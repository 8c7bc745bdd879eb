import { randomUUID } from 'node:crypto'
import type { DiskSpace } from '../../shared/local/ollama-models'
import {
  PULL_CANCELLED_STATUS,
  PULL_ERROR_STATUS,
  isFinalPullPhase,
  type PullSnapshot
} from '../../shared/local/pull-progress'
import { AppErrorException } from '../../shared/errors/app-error'
import { ollamaDiskSpace } from './disk-space'
import { toRawPullEnding, toRawPullEvent } from '../runtime/providers/ollama/pull-events'
import { IdleWatchdog } from '../runtime/stream/idle-watchdog'
import { PullAggregator } from './pull-aggregator'
import { TransferRate } from '../progress/transfer-rate'
import { ProgressFeed } from '../progress/progress-feed'
import { createOllamaClient, maskUrl, normaliseOllamaBaseUrl } from '../runtime/providers/ollama/ollama-client'
import { toOllamaError } from '../runtime/providers/ollama/ollama-errors'
import { logged } from '../log/logger'

export interface PullServiceOptions {
  /** Minimum gap between two published updates of one pull (ms); ~9 a second by default. */
  throttleMs?: number
  /** A pull that sends nothing for this long is stopped as failed (ms). */
  idleTimeoutMs?: number
  /** How long a finished pull stays listed (ms). */
  retainMs?: number
  /** Free space where the server keeps models; injectable for tests. */
  diskSpace?: (baseUrl: string) => Promise<DiskSpace | undefined>
  /** The SDK's fetch; injectable for tests. */
  fetch?: typeof fetch
  defaultBaseUrl?: () => string
}

export interface StartPullInput {
  model: string
  baseUrl?: string
  insecure?: boolean
}

interface PullJob {
  id: string
  key: string
  model: string
  baseUrl: string
  insecure: boolean
  agg: PullAggregator
  rate: TransferRate
  controller: AbortController
  idleFired: boolean
  feed: ProgressFeed<PullSnapshot>
  last: PullSnapshot
  lastPublishAt: number
  publishTimer?: NodeJS.Timeout
  startedAt: number
  finishedAt?: number
  previousAttempt?: PullSnapshot['previousAttempt']
  disk?: DiskSpace
  error?: PullSnapshot['error']
  /** Bytes already on disk at start are not part of this session's speed. */
  done: Promise<PullSnapshot>
}

/**
 * Model pulls owned by the core. A pull runs whether or not a window watches it (closing
 * the page does not stop it); several run at once; each publishes at most one update per
 * `throttleMs` however fast the server talks, and always publishes its exact final state.
 * Watchers get the latest state only (a slow one skips intermediate updates, never the end).
 */
export class PullService {
  private readonly jobs = new Map<string, PullJob>()
  /** How the last pull of each model ended, to say "resuming" on the next one. */
  private readonly attempts = new Map<string, NonNullable<PullSnapshot['previousAttempt']>>()
  /** Where each layer of that last attempt stopped, so a resume opens at those bytes. */
  private readonly attemptLayers = new Map<string, PullSnapshot['layers']>()
  private readonly throttleMs: number
  private readonly idleTimeoutMs: number
  private readonly retainMs: number
  private closed = false

  constructor(private readonly options: PullServiceOptions = {}) {
    // 110 ms: "about ten a second" with room, so a 2 s burst stays well under 25 updates.
    this.throttleMs = options.throttleMs ?? 110
    this.idleTimeoutMs = options.idleTimeoutMs ?? 60_000
    this.retainMs = options.retainMs ?? 10 * 60_000
  }

  /** Starts a pull, or returns the one already running for this model on this server. */
  start(input: StartPullInput): PullSnapshot {
    if (this.closed) throw new AppErrorException({ errorType: 'InternalError', message: 'Switchboard is shutting down.' })
    const model = input.model.trim()
    if (!/^[\w.\-/:]+$/.test(model) || model.length > 300) {
      throw new AppErrorException({
        errorType: 'InvalidOllamaArgs',
        status: 401,
        provider: 'ollama',
        message: `"${model}" is not a model name; use name or name:tag, for example llama3.2:3b.`
      })
    }
    const baseUrl = normaliseOllamaBaseUrl(input.baseUrl ?? this.options.defaultBaseUrl?.())
    const key = `${baseUrl}|${model.includes(':') ? model : `${model}:latest`}`
    for (const job of this.jobs.values()) {
      if (job.key === key && !job.finishedAt) return job.last
    }
    const now = Date.now()
    const job: PullJob = {
      id: randomUUID(),
      key,
      model,
      baseUrl,
      insecure: input.insecure ?? false,
      agg: new PullAggregator(),
      rate: new TransferRate(),
      controller: new AbortController(),
      idleFired: false,
      feed: new ProgressFeed(),
      last: undefined as unknown as PullSnapshot,
      lastPublishAt: 0,
      startedAt: now,
      previousAttempt: this.attempts.get(key),
      done: undefined as unknown as Promise<PullSnapshot>
    }
    const earlier = this.attemptLayers.get(key)
    if (job.previousAttempt && earlier) job.agg.seed(earlier)
    job.last = this.snapshot(job)
    this.jobs.set(job.id, job)
    job.done = this.run(job)
    return job.last
  }

  private async run(job: PullJob): Promise<PullSnapshot> {
    const signal = job.controller.signal
    const baseFetch = this.options.fetch ?? fetch
    // The SDK only exposes its abort once the response arrived; our own signal also
    // covers the wait for headers.
    const fetchWithSignal: typeof fetch = (url, init) =>
      baseFetch(url, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, signal]) : signal })
    const diskProbe = this.options.diskSpace ?? ((url: string) => ollamaDiskSpace(url))
    void diskProbe(job.baseUrl)
      .then((disk) => {
        job.disk = disk
      })
      // The pull goes on without the free-space figure; the reason is logged.
      .catch(logged('pull', 'reading the free disk space'))
    let failure: unknown
    // One coarse timer for the whole pull, touched per line: a fast pull sends tens of
    // thousands of lines and a timer per line would cost more than the parsing.
    const watchdog = new IdleWatchdog(this.idleTimeoutMs, () => {
      job.idleFired = true
      job.controller.abort()
    })
    job.rate.add(performance.now(), 0)
    const agg = job.agg
    try {
      const client = await createOllamaClient(job.baseUrl, fetchWithSignal)
      const iterator = await client.pull({ model: job.model, insecure: job.insecure, stream: true })
      for await (const line of iterator) {
        watchdog.touch()
        const event = toRawPullEvent(line, job.model)
        if (!event) continue
        agg.apply(event)
        if (isFinalPullPhase(agg.phase)) break
        this.schedulePublish(job)
      }
    } catch (error) {
      failure = error
      agg.apply(toRawPullEnding(error, job.model))
    } finally {
      watchdog.stop()
    }
    if (agg.phase === 'cancelled' && job.idleFired) {
      agg.phase = 'error'
      job.error = {
        errorType: 'ProviderNetworkError',
        status: PULL_ERROR_STATUS,
        message: `Ollama sent no progress for ${Math.round(this.idleTimeoutMs / 1000)} s, so the pull was stopped. Pull again to resume where it stopped.`
      }
    } else if (agg.phase === 'cancelled') {
      job.error = { errorType: 'ProviderBizError', status: PULL_CANCELLED_STATUS, message: 'Request was cancelled' }
    } else if (agg.phase === 'error' && isUnknownModel(agg.errorMessage)) {
      // The registry has no such name: pulling again cannot help, so no "Resume" either.
      job.error = {
        errorType: 'OllamaBizError',
        status: PULL_ERROR_STATUS,
        message: `"${job.model}" was not found in the Ollama library — check the name.`,
        notFound: true
      }
    } else if (agg.phase === 'error') {
      const mapped = toOllamaError(failure ?? new Error(agg.errorMessage ?? 'Pull failed'), job.model)
      job.error = { errorType: mapped.errorType, status: PULL_ERROR_STATUS, message: maskUrl(mapped.message) }
    } else if (agg.phase !== 'success') {
      // The SDK ends a stream without 'success' by throwing, so this is defensive only.
      agg.phase = 'error'
      job.error = { errorType: 'OllamaBizError', status: PULL_ERROR_STATUS, message: 'The pull ended before Ollama reported success.' }
    }
    job.finishedAt = Date.now()
    if ((agg.phase === 'cancelled' || agg.phase === 'error') && !job.error?.notFound) {
      this.attempts.set(job.key, { phase: agg.phase, completedBytes: agg.completedBytes, at: job.finishedAt })
      this.attemptLayers.set(job.key, agg.layerDetail())
    } else {
      this.attempts.delete(job.key)
      this.attemptLayers.delete(job.key)
    }
    this.publish(job)
    const expiry = setTimeout(() => this.jobs.get(job.id) === job && this.jobs.delete(job.id), this.retainMs)
    expiry.unref?.()
    return job.last
  }

  private schedulePublish(job: PullJob): void {
    if (job.publishTimer) return
    const wait = job.lastPublishAt + this.throttleMs - performance.now()
    if (wait <= 0) {
      this.publish(job)
      return
    }
    job.publishTimer = setTimeout(() => {
      job.publishTimer = undefined
      if (!job.finishedAt) this.publish(job)
    }, wait)
  }

  private publish(job: PullJob): void {
    if (job.publishTimer) {
      clearTimeout(job.publishTimer)
      job.publishTimer = undefined
    }
    job.lastPublishAt = performance.now()
    job.rate.add(job.lastPublishAt, job.agg.completedBytes - job.agg.resumedBytes)
    job.last = this.snapshot(job)
    job.feed.publish(job.last)
  }

  private snapshot(job: PullJob): PullSnapshot {
    const agg = job.agg
    const final = isFinalPullPhase(agg.phase)
    const bytesPerSecond = final ? 0 : Math.round(job.rate.rate())
    const left = agg.totalBytes - agg.completedBytes
    const snap: PullSnapshot = {
      id: job.id,
      model: job.model,
      baseUrl: maskUrl(job.baseUrl),
      insecure: job.insecure,
      phase: agg.phase,
      status: agg.status,
      completedBytes: agg.completedBytes,
      totalBytes: agg.totalBytes,
      fraction: agg.fraction(),
      bytesPerSecond,
      layers: agg.layerDetail(),
      // Only bytes known to exist before this pull make it a resume: a fresh download's first
      // progress line can already carry bytes fetched since it started (Ollama reports on a timer).
      resumed: (job.previousAttempt?.completedBytes ?? 0) > 0 && agg.resumedBytes > 0,
      resumedBytes: agg.resumedBytes,
      startedAt: job.startedAt,
      updatedAt: Date.now()
    }
    if (!final && bytesPerSecond > 0 && agg.totalBytes > 0) snap.etaSeconds = Math.ceil(left / bytesPerSecond)
    if (job.previousAttempt) snap.previousAttempt = job.previousAttempt
    if (job.disk) snap.disk = { freeBytes: job.disk.freeBytes, willNotFit: !final && left > job.disk.freeBytes }
    if (job.error) snap.error = job.error
    if (job.finishedAt) snap.finishedAt = job.finishedAt
    return snap
  }

  /** The current state, then each published update, ending with the final state (also returned). */
  async *watch(id: string, signal?: AbortSignal): AsyncGenerator<PullSnapshot, PullSnapshot | undefined> {
    const job = this.jobs.get(id)
    if (!job) throw unknownPull(id)
    return yield* job.feed.watch(job.last, (s) => isFinalPullPhase(s.phase), signal)
  }

  /** Resolves with the final state of a pull. */
  async wait(id: string): Promise<PullSnapshot> {
    const job = this.jobs.get(id)
    if (!job) throw unknownPull(id)
    return job.done
  }

  cancel(id: string): boolean {
    const job = this.jobs.get(id)
    if (!job || job.finishedAt) return false
    job.controller.abort()
    return true
  }

  /** Forget a finished pull (the UI's "dismiss"). */
  dismiss(id: string): boolean {
    const job = this.jobs.get(id)
    if (!job || !job.finishedAt) return false
    return this.jobs.delete(id)
  }

  /** Running pulls first, then recently finished ones, newest first. */
  list(): PullSnapshot[] {
    return [...this.jobs.values()]
      .map((j) => j.last)
      .sort((a, b) => Number(Boolean(a.finishedAt)) - Number(Boolean(b.finishedAt)) || b.startedAt - a.startedAt)
  }

  get(id: string): PullSnapshot | undefined {
    return this.jobs.get(id)?.last
  }

  async close(): Promise<void> {
    this.closed = true
    const running = [...this.jobs.values()].filter((j) => !j.finishedAt)
    for (const job of running) job.controller.abort()
    await Promise.allSettled(running.map((j) => j.done))
  }
}

/** Ollama's words when the registry has no manifest for the name. */
const isUnknownModel = (message: string | undefined) =>
  message !== undefined && /pull model manifest: file does not exist|manifest unknown|not found/i.test(message)

const unknownPull = (id: string) =>
  new AppErrorException({ errorType: 'UnknownStream', status: 404, message: `No running or recent pull has the id ${id}.` })
