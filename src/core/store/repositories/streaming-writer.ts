import type { AppError } from '../../../shared/errors/app-error'
import type { CostBreakdown } from '../../../shared/data/cost'
import type { Message } from '../../../shared/data/message'
import type { Grounding, Speed, StreamEvent, ToolCall } from '../../../shared/stream/events'
import type { UsageRecord } from '../../../shared/stream/usage'
import { applyEventToMessage } from '../../../shared/chat/apply-event'
import { AppErrorException } from '../../../shared/errors/app-error'

/** The store's error for a final write that failed, worded for the message it belongs to. */
function toSaveError(error: unknown): AppError {
  const reason = error instanceof AppErrorException ? error.error.message : 'the database could not be written'
  const type = error instanceof AppErrorException ? error.error.errorType : 'StorageError'
  return {
    errorType: type,
    status: 507,
    message: `This reply could not be saved yet: ${reason.replace(/\.+$/, '')}. Switchboard keeps it in memory and saves it as soon as writing works again; it is lost if Switchboard quits before then.`
  }
}

export const DEFAULT_FLUSH_INTERVAL_MS = 1000

export interface FinishExtras {
  usage?: UsageRecord
  cost?: CostBreakdown
  speed?: Speed
  grounding?: Grounding
  error?: AppError
}

export interface StreamingWriterOptions {
  /** How long a change may wait before it is written (default ~1 s: a crash loses at most that). */
  flushIntervalMs?: number
  /** Called when a timed flush fails (disk full…); the change stays pending and the next flush retries. */
  onError?: (error: unknown) => void
  /** How often a final write that failed is tried again (default 2 s). */
  retryFinishMs?: number
}

/** The row was finished, deleted or rewritten by someone else (a second process on the folder). */
export const REPLY_CHANGED_ELSEWHERE = 'ReplyChangedElsewhere'

export const replyChangedElsewhere = () =>
  new AppErrorException({
    errorType: REPLY_CHANGED_ELSEWHERE,
    status: 409,
    message:
      'This reply was changed in the database by something else (perhaps a second Switchboard using the same data folder), so it was not saved here. Close the other one; the text shown is kept until you leave this conversation.'
  })

const isConflict = (error: unknown) => error instanceof AppErrorException && error.error.errorType === REPLY_CHANGED_ELSEWHERE

/** Thrown by a sink whose store was closed: retrying is pointless (start-up repair will mark the row interrupted). */
export const STORE_CLOSED = 'StoreClosed'
const isClosed = (error: unknown) => error instanceof AppErrorException && error.error.errorType === STORE_CLOSED

/**
 * How the writer reaches the database; the messages repository supplies it. Both throw
 * `replyChangedElsewhere()` when the row is no longer this writer's `streaming` row.
 */
export interface StreamingSink {
  write(message: Message): void
  finish(message: Message): void
  /** The final message could not be written yet (or now was): readers see it from memory meanwhile. */
  unsaved?(message: Message | undefined, id: string): void
}

/**
 * One assistant reply being streamed into a `streaming` row. Appends are cheap (memory);
 * the row is rewritten at most about once a second and on `finish`. Feed it the runtime's
 * events with `apply`, or use the typed appenders.
 */
export class StreamingWriter {
  private current: Message
  private dirty = false
  private timer: ReturnType<typeof setTimeout> | undefined
  private done = false
  private readonly interval: number
  /** The first error that makes further writes pointless (the row changed under us). */
  private conflict: AppErrorException | undefined
  private retry: ReturnType<typeof setTimeout> | undefined
  /** Set while the final write has not reached the disk; cleared when a retry succeeds. */
  saveError: AppError | undefined

  constructor(
    initial: Message,
    private readonly sink: StreamingSink,
    private readonly options: StreamingWriterOptions = {}
  ) {
    this.current = initial
    this.interval = options.flushIntervalMs ?? DEFAULT_FLUSH_INTERVAL_MS
  }

  get id(): string {
    return this.current.id
  }

  /** The reply as it is now (including changes not yet flushed). */
  get message(): Message {
    return this.current
  }

  get finished(): boolean {
    return this.done
  }

  appendText(delta: string): void {
    this.applyShared({ type: 'text', data: delta })
  }

  appendReasoning(delta: string, signature?: string): void {
    this.applyShared({ type: 'reasoning', data: delta, ...(signature !== undefined ? { signature } : {}) })
  }

  /** Streamed tool-call fragments: same `index` (or same id) merge, arguments concatenate. */
  appendToolCalls(calls: readonly ToolCall[]): void {
    this.applyShared({ type: 'tool_calls', data: [...calls] })
  }

  set(extras: FinishExtras): void {
    this.change({ ...extras })
  }

  /**
   * Applies one runtime event. Returns false for events the row does not keep (stop, retry,
   * images: the caller stores files). Throws once the row was changed under this writer: a
   * reply must fail loudly rather than stream on into writes that are dropped.
   */
  apply(event: StreamEvent): boolean {
    if (this.conflict) throw this.conflict
    return this.applyShared(event)
  }

  /** The same application the renderer uses (src/shared/chat/apply-event.ts); images stay out of the row. */
  private applyShared(event: StreamEvent): boolean {
    const next = applyEventToMessage(this.current, event, { inlineImages: false })
    if (!next) return false
    if (next !== this.current) this.change(next)
    return true
  }

  /** Writes pending changes now. Throws the store's error (disk full…) if the write fails. */
  flush(): void {
    this.clearTimer()
    if (!this.dirty || this.done) return
    if (this.conflict) throw this.conflict
    const snapshot = { ...this.current, updatedAt: Date.now() }
    try {
      this.sink.write(snapshot)
    } catch (error) {
      if (isConflict(error)) this.conflict = error as AppErrorException
      throw error
    }
    this.current = snapshot
    this.dirty = false
  }

  /**
   * Ends the reply: one final write with its status. `interrupted` when the stream closed
   * without the provider's end marker or was cancelled; `error` with the error to show.
   * Never throws and never leaves a live-looking reply: if the write fails (disk full,
   * read-only) the final message stays in memory, readers get it from there, the failure is
   * on the returned message, and the write is retried until it works. If the row was changed
   * by someone else, the returned message says so and nothing is retried.
   */
  finish(status: 'complete' | 'interrupted' | 'error', extras: FinishExtras = {}): Message {
    if (this.done) return this.current
    this.clearTimer()
    const final: Message = { ...this.current, ...extras, status, updatedAt: Date.now() }
    this.done = true
    this.dirty = false
    if (this.conflict) return (this.current = { ...final, error: this.conflict.error })
    try {
      this.sink.finish(final)
      this.current = final
      return final
    } catch (error) {
      if (isConflict(error)) return (this.current = { ...final, error: (error as AppErrorException).error })
      this.saveError = toSaveError(error)
      this.current = final
      this.sink.unsaved?.(final, final.id)
      this.scheduleRetry(final)
      return { ...final, error: this.saveError }
    }
  }

  /** Tries the final write again until it works (or the row turns out to be someone else's). */
  private scheduleRetry(final: Message): void {
    this.retry = setTimeout(() => {
      this.retry = undefined
      try {
        this.sink.finish({ ...final, updatedAt: Date.now() })
        this.saveError = undefined
        this.sink.unsaved?.(undefined, final.id)
      } catch (error) {
        if (isConflict(error) || isClosed(error)) {
          this.sink.unsaved?.(undefined, final.id)
          return
        }
        this.saveError = toSaveError(error)
        this.scheduleRetry(final)
      }
    }, this.options.retryFinishMs ?? 2_000)
    // A pending retry must not keep a CLI process alive.
    this.retry.unref?.()
  }

  /** Stops retrying (the store is closing). */
  dispose(): void {
    this.clearTimer()
    if (this.retry) clearTimeout(this.retry)
    this.retry = undefined
  }

  private change(patch: Partial<Message>): void {
    if (this.done) return
    this.current = { ...this.current, ...patch }
    this.dirty = true
    if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = undefined
        try {
          this.flush()
        } catch (error) {
          this.dirty = !this.conflict
          this.options.onError?.(error)
        }
      }, this.interval)
      // A pending flush must not keep a CLI process alive.
      this.timer.unref?.()
    }
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
  }
}
