import { randomUUID } from 'node:crypto'
import { BridgeErrorType, type AppError, type Result } from '../../shared/errors/app-error'
import { toAppError } from './to-app-error'
import type { ActiveTask, TaskKind, TaskMetas } from '../../shared/bridge/procedures/tasks'

export type StreamListener = {
  events(events: unknown[], from: number): void
  end(result: Result<unknown>): void
}

interface LiveStream {
  readonly id: string
  readonly proc: string
  readonly controller: AbortController
  /** The events kept for replay, so a subscriber can (re)attach from any point: log[head…]. */
  log: unknown[]
  /** Sequence number of log[0]. */
  base: number
  /** Index in `log` of the oldest event still kept (older ones fell past the cap). */
  head: number
  readonly listeners: Set<StreamListener>
  result?: Result<unknown>
  expiry?: NodeJS.Timeout
  /** Set when the stream is background work a screen lists (a reply, an image task, a pull). */
  task?: { kind: TaskKind; meta: unknown }
  readonly startedAt: number
  /** This stream's replay cap (see LOG_CAP_BY_KIND). */
  readonly maxLog: number
  /** Resolves when the stream has ended (its result is set and its listeners told). */
  readonly ended: Promise<void>
  readonly markEnded: () => void
}

/**
 * Kinds whose events are states, not a text being built: a subscriber needs the newest ones
 * only (a knowledge run's file states; the screen reads the files list itself). Keeping every
 * state of a 10,000-file run for replay grew the heap by ~0.4 KB per file.
 */
const LOG_CAP_BY_KIND: Partial<Record<TaskKind, number>> = { knowledge: 1_000 }

/** What a service needs of the hub to register its work as tasks and to stop it. */
export interface TaskRegistry {
  /** Registers a running stream as a task of `kind`, or replaces its metadata (a new step, a new state). */
  describe<K extends TaskKind>(streamId: string, kind: K, meta: TaskMetas[K]): void
  /** The running task of `kind` whose metadata matches. */
  find<K extends TaskKind>(kind: K, match: (meta: TaskMetas[K]) => boolean): ActiveTask<K> | undefined
  cancel(streamId: string): boolean
}

export interface StreamHubOptions {
  /** How long a finished stream stays attachable (ms). */
  retainMs?: number
  /** At most this many events are kept for replay per stream. */
  maxLog?: number
}

/**
 * Owns the running streams (chat replies, image tasks, model pulls, indexing), and is the
 * one registry of background work: a stream described as a task (`describe`, or `start`'s
 * third argument) is listed by `tasks()` while it runs. A stream runs until
 * it finishes or is cancelled, whether or not anyone listens: closing a window does not
 * lose a reply. Listeners get events in batches, flushed once per macrotask, which is
 * what lets a socket carry tens of thousands of small events a second.
 */
export class StreamHub implements TaskRegistry {
  private readonly streams = new Map<string, LiveStream>()
  private readonly retainMs: number
  private readonly maxLog: number

  constructor(options: StreamHubOptions = {}) {
    this.retainMs = options.retainMs ?? 5 * 60_000
    this.maxLog = options.maxLog ?? 200_000
  }

  start<K extends TaskKind>(
    proc: string,
    run: (signal: AbortSignal, id: string) => AsyncIterator<unknown, unknown>,
    task?: { kind: K; meta: TaskMetas[K] }
  ): string {
    const id = randomUUID()
    const maxLog = Math.min(this.maxLog, (task && LOG_CAP_BY_KIND[task.kind]) ?? this.maxLog)
    let markEnded!: () => void
    const ended = new Promise<void>((resolve) => (markEnded = resolve))
    const stream: LiveStream = { id, proc, controller: new AbortController(), log: [], base: 0, head: 0, listeners: new Set(), startedAt: Date.now(), maxLog, ended, markEnded, ...(task ? { task } : {}) }
    // A producer that throws at once is the caller's error, not a stream: nothing is registered.
    const iterator = run(stream.controller.signal, id)
    this.streams.set(id, stream)
    void this.pump(stream, iterator)
    return id
  }

  private async pump(stream: LiveStream, iterator: AsyncIterator<unknown, unknown>): Promise<void> {
    let pending: unknown[] = []
    let pendingFrom = 0
    let scheduled = false
    const flush = () => {
      scheduled = false
      if (pending.length === 0) return
      const batch = pending
      const from = pendingFrom
      pending = []
      for (const listener of stream.listeners) listener.events(batch, from)
    }
    let result: Result<unknown>
    try {
      for (;;) {
        const step = await iterator.next()
        if (step.done) {
          result = { ok: true, value: step.value ?? null }
          break
        }
        const seq = stream.base + stream.log.length
        stream.log.push(step.value)
        if (stream.log.length - stream.head > stream.maxLog) {
          stream.head++
          // Compact once a cap's worth has fallen off: amortised O(1), unlike shift() per event.
          if (stream.head >= stream.maxLog) {
            stream.log = stream.log.slice(stream.head)
            stream.base += stream.head
            stream.head = 0
          }
        }
        if (pending.length === 0) pendingFrom = seq
        pending.push(step.value)
        if (!scheduled) {
          scheduled = true
          setImmediate(flush)
        }
      }
    } catch (error) {
      result = { ok: false, error: toAppError(error) }
    }
    flush()
    stream.result = result
    for (const listener of stream.listeners) {
      try {
        listener.end(result)
      } catch {
        // A listener's transport failing must not stop the others from hearing the end.
      }
    }
    stream.listeners.clear()
    stream.markEnded()
    stream.expiry = setTimeout(() => this.streams.delete(stream.id), this.retainMs)
    stream.expiry.unref?.()
  }

  /** Subscribe from event `from`; replays what was missed. Returns an unsubscribe function. */
  attach(id: string, from: number, listener: StreamListener): Result<() => void> {
    const stream = this.streams.get(id)
    if (!stream) return { ok: false, error: unknownStream(id) }
    const start = Math.max(from, stream.base + stream.head)
    const backlog = stream.log.slice(start - stream.base)
    if (backlog.length > 0) listener.events(backlog, start)
    if (stream.result) {
      listener.end(stream.result)
      return { ok: true, value: () => undefined }
    }
    stream.listeners.add(listener)
    return { ok: true, value: () => stream.listeners.delete(listener) }
  }

  cancel(id: string): boolean {
    const stream = this.streams.get(id)
    if (!stream || stream.result) return false
    stream.controller.abort()
    return true
  }

  /** Resolves when the stream has ended (at once for one that has ended or is unknown). */
  settled(id: string): Promise<void> {
    return this.streams.get(id)?.ended ?? Promise.resolve()
  }

  /** Streams still running (tests; screens list tasks). */
  running(proc?: string): string[] {
    return [...this.streams.values()].filter((s) => !s.result && (!proc || s.proc === proc)).map((s) => s.id)
  }

  describe<K extends TaskKind>(streamId: string, kind: K, meta: TaskMetas[K]): void {
    const stream = this.streams.get(streamId)
    if (stream && !stream.result) stream.task = { kind, meta }
  }

  /** Running tasks (of one kind, or all), oldest first: the one list of background work. */
  tasks<K extends TaskKind = TaskKind>(kind?: K): ActiveTask<K>[] {
    const found: ActiveTask<K>[] = []
    for (const s of this.streams.values()) {
      if (s.result || !s.task || (kind && s.task.kind !== kind)) continue
      found.push({ id: s.id, kind: s.task.kind, meta: s.task.meta, startedAt: s.startedAt } as ActiveTask<K>)
    }
    return found.sort((a, b) => a.startedAt - b.startedAt)
  }

  find<K extends TaskKind>(kind: K, match: (meta: TaskMetas[K]) => boolean): ActiveTask<K> | undefined {
    return this.tasks(kind).find((t) => match(t.meta as TaskMetas[K]))
  }

  has(id: string): boolean {
    return this.streams.has(id)
  }

  /** Abort everything (app shutting down). */
  close(): void {
    for (const stream of this.streams.values()) {
      stream.controller.abort(new ShutdownAbort())
      if (stream.expiry) clearTimeout(stream.expiry)
    }
  }
}

/** The abort reason when the core shuts down: a reply cut by it was not stopped by the user. */
export class ShutdownAbort extends Error {
  override name = 'AbortError'
  constructor() {
    super('Switchboard is shutting down.')
  }
}

export const abortedByShutdown = (signal: AbortSignal) => signal.aborted && signal.reason instanceof ShutdownAbort

const unknownStream = (id: string): AppError => ({
  errorType: BridgeErrorType.UnknownStream,
  message: `No running or recent stream has the id ${id}; it may have finished more than a few minutes ago.`
})
