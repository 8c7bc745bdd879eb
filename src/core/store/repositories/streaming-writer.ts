import type { AppError } from '../../../shared/errors/app-error'
import type { CostBreakdown } from '../../../shared/data/cost'
import type { Message } from '../../../shared/data/message'
import type { Grounding, Speed, StreamEvent, ToolCall } from '../../../shared/stream/events'
import type { UsageRecord } from '../../../shared/stream/usage'
import { mergeToolCalls } from '../../../shared/chat/apply-event'

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
}

/** How the writer reaches the database; the messages repository supplies it. */
export interface StreamingSink {
  write(message: Message): void
  finish(message: Message): void
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
    if (!delta) return
    const content = [...this.current.content]
    const last = content[content.length - 1]
    if (last && last.type === 'text') content[content.length - 1] = { type: 'text', text: last.text + delta }
    else content.push({ type: 'text', text: delta })
    this.change({ content })
  }

  appendReasoning(delta: string, signature?: string): void {
    const before = this.current.reasoning
    const reasoning = { text: (before?.text ?? '') + delta, ...(signature ?? before?.signature ? { signature: signature ?? before?.signature } : {}) }
    this.change({ reasoning })
  }

  /** Streamed tool-call fragments: same `index` (or same id) merge, arguments concatenate. */
  appendToolCalls(calls: readonly ToolCall[]): void {
    this.change({ toolCalls: mergeToolCalls(this.current.toolCalls, calls) })
  }

  set(extras: FinishExtras): void {
    this.change({ ...extras })
  }

  /** Applies one runtime event. Returns false for events the row does not keep (stop, retry, images: the caller stores files). */
  apply(event: StreamEvent): boolean {
    switch (event.type) {
      case 'text':
        this.appendText(event.data)
        return true
      case 'reasoning':
        this.appendReasoning(event.data, event.signature)
        return true
      case 'tool_calls':
        this.appendToolCalls(event.data)
        return true
      case 'usage':
        this.set({ usage: event.data })
        return true
      case 'grounding':
        this.set({ grounding: event.data })
        return true
      case 'speed':
        this.set({ speed: event.data })
        return true
      case 'error':
        this.set({ error: event.data })
        return true
      default:
        return false
    }
  }

  /** Writes pending changes now. Throws the store's error (disk full…) if the write fails. */
  flush(): void {
    this.clearTimer()
    if (!this.dirty || this.done) return
    const snapshot = { ...this.current, updatedAt: Date.now() }
    this.sink.write(snapshot)
    this.current = snapshot
    this.dirty = false
  }

  /**
   * Ends the reply: one final write with its status. `interrupted` when the stream closed
   * without the provider's end marker or was cancelled; `error` with the error to show.
   */
  finish(status: 'complete' | 'interrupted' | 'error', extras: FinishExtras = {}): Message {
    if (this.done) return this.current
    this.clearTimer()
    const final: Message = { ...this.current, ...extras, status, updatedAt: Date.now() }
    this.sink.finish(final)
    this.current = final
    this.dirty = false
    this.done = true
    return final
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
          this.dirty = true
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
