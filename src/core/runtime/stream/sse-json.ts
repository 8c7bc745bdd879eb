/**
 * Reads an SSE body of JSON messages, the way the OpenAI SDK's `Stream.fromSSEResponse` does
 * (legacy mode): `[DONE]` ends it, a message that is not JSON throws a SyntaxError, an `error`
 * event or a message with an `error` field throws the SDK's APIError (so the provider's error
 * mapping sees what it would have seen), `thread.*` events come as `{ event, data }`, an
 * abort ends it quietly.
 *
 * Why not the SDK's own stream: it decodes every message through four async generators
 * (bytes → blocks → lines → messages → normalised chunks), copies each block and decodes
 * each line separately. For a long reply that is most of the runtime's time — a 200,000-chunk
 * stream spent more in the SDK's decoder than the consumer did reading its result. Here each
 * network read is decoded once, split into messages and parsed in one synchronous pass; the
 * iterator then hands the parsed messages out from a queue (a resolved promise per message,
 * no generator).
 */
import type { ReadyChunks } from './event-batches'

export interface SseJsonOptions {
  /** The request's signal: an abort cancels the body and ends the iteration quietly. */
  signal: AbortSignal
  /** Builds the error thrown for an `error` event or a message carrying `error` (the SDK's APIError). */
  apiError(error: unknown, headers: Headers): Error
  /** Parses one message's data (default JSON.parse); it throws for data that is not JSON. */
  parse?: (data: string) => unknown
  /**
   * Told of every network read (keep-alive comments count as activity for the idle watchdog) and
   * whether the body ended with `[DONE]` (a stream cut before it was not complete).
   */
  watch?: { done: boolean; onBytes?: () => void }
}

/** How much more is read after `[DONE]`, and for how long, before the body is cancelled. */
const DRAIN_BYTES = 16 * 1024
const DRAIN_MS = 200

const ENDED: IteratorResult<unknown> = Object.freeze({ done: true, value: undefined }) as IteratorResult<unknown>

const isAbort = (error: unknown): boolean => error instanceof Error && (error.name === 'AbortError' || error.name === 'APIUserAbortError')

export function sseJsonStream(response: Response, options: SseJsonOptions): AsyncIterable<unknown> & AsyncIterator<unknown> & ReadyChunks<unknown> {
  return new SseJsonReader(response, options)
}

class SseJsonReader implements AsyncIterator<unknown>, ReadyChunks<unknown> {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array> | undefined
  /** The bytes of a character the last read cut in two. */
  private partial: Uint8Array | undefined
  private started = false
  /** Parsed messages not yet handed out, from `head`. */
  private queue: unknown[] = []
  private head = 0
  /** Text after the last complete line. */
  private rest = ''
  /** A `\r` that ended the last read: a `\n` at the start of the next one belongs to it. */
  private carriage = false
  /** The message being read: its event name and data lines. */
  private event: string | null = null
  private data: string | undefined
  /** Thrown once the queue before it is handed out (a bad message, an error message). */
  private failure: { error: unknown } | undefined
  /** No more reads: `[DONE]`, the end of the body, an abort, a failure or `return()`. */
  private over = false
  /** The body ended by itself (nothing to cancel). */
  private bodyDone = false
  private released = false
  /** Ended by `[DONE]`: what follows is only the body's end. */
  private sawDone = false
  private readonly parse: (data: string) => unknown
  private readonly onAbort = (): void => {
    this.over = true
    this.release()
  }

  constructor(
    private readonly response: Response,
    private readonly options: SseJsonOptions
  ) {
    this.parse = options.parse ?? JSON.parse
    this.reader = response.body?.getReader()
    if (!this.reader) throw new Error('Attempted to iterate over a response with no body')
    if (options.signal.aborted) this.onAbort()
    else options.signal.addEventListener('abort', this.onAbort, { once: true })
  }

  [Symbol.asyncIterator](): this {
    return this
  }

  next(): Promise<IteratorResult<unknown>> {
    if (this.head < this.queue.length) return Promise.resolve({ done: false, value: this.queue[this.head++] })
    return this.fill()
  }

  /** The messages already parsed and not handed out (the runtime takes a network read's worth at once). */
  ready(): unknown[] {
    if (this.head >= this.queue.length) return []
    const out = this.head === 0 ? this.queue : this.queue.slice(this.head)
    this.queue = []
    this.head = 0
    return out
  }

  async return(): Promise<IteratorResult<unknown>> {
    this.over = true
    this.queue = []
    this.head = 0
    this.failure = undefined
    this.release()
    return ENDED
  }

  private async fill(): Promise<IteratorResult<unknown>> {
    this.queue = []
    this.head = 0
    for (;;) {
      if (this.failure) {
        const { error } = this.failure
        this.failure = undefined
        this.over = true
        this.release()
        throw error
      }
      if (this.over) {
        this.release()
        return ENDED
      }
      let read: Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>['read']>>
      try {
        read = await this.reader!.read()
      } catch (error) {
        this.over = true
        this.bodyDone = true
        this.release()
        if (this.options.signal.aborted && (isAbort(error) || error === this.options.signal.reason)) return ENDED
        throw error
      }
      if (this.over) continue
      if (read.done) {
        this.bodyDone = true
        this.take(this.partial ? this.decode(new Uint8Array(0)) : '', true)
        this.over = true
      } else {
        this.options.watch?.onBytes?.()
        this.take(this.decode(read.value), false)
      }
      if (this.head < this.queue.length) return { done: false, value: this.queue[this.head++] }
    }
  }

  /**
   * UTF-8 to text, a character cut between two reads kept for the next one. Buffer's decoder
   * rather than TextDecoder's streaming mode, which was several times slower on long replies;
   * malformed bytes become U+FFFD either way, and a byte order mark at the start is dropped as
   * TextDecoder does.
   */
  private decode(bytes: Uint8Array): string {
    let data = bytes
    if (this.partial) {
      data = new Uint8Array(this.partial.length + bytes.length)
      data.set(this.partial)
      data.set(bytes, this.partial.length)
      this.partial = undefined
    }
    const whole = this.bodyDone ? data.length : wholeCharacters(data)
    if (whole < data.length) this.partial = data.slice(whole)
    let text = Buffer.from(data.buffer, data.byteOffset, whole).toString('utf8')
    if (!this.started && text.length > 0) {
      this.started = true
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
    }
    return text
  }

  /** Splits decoded text into lines and the lines into messages; `end` flushes what is left. */
  private take(chunk: string, end: boolean): void {
    let text = this.rest + chunk
    if (this.carriage && text.charCodeAt(0) === 10) text = text.slice(1)
    this.carriage = false
    if (text.indexOf('\r') !== -1) {
      // CR and CRLF line ends (rare): normalised to LF; a trailing CR waits for a possible LF.
      this.carriage = text.charCodeAt(text.length - 1) === 13
      text = text.replace(/\r\n?/g, '\n')
    }
    let start = 0
    for (;;) {
      const newline = text.indexOf('\n', start)
      if (newline === -1) break
      this.line(text, start, newline)
      start = newline + 1
      if (this.over) return
    }
    this.rest = start === 0 ? text : text.slice(start)
    if (end) {
      if (this.rest) this.line(this.rest, 0, this.rest.length)
      this.rest = ''
      // A last message without the blank line after it still counts.
      if (!this.over) this.dispatch()
    }
  }

  private line(text: string, start: number, end: number): void {
    if (start === end) {
      this.dispatch()
      return
    }
    const first = text.charCodeAt(start)
    if (first === 58) return // ':' a comment (keep-alives)
    // The common line, `data: {…}`, without building the field name.
    if (first === 100 && text.charCodeAt(start + 1) === 97 && text.charCodeAt(start + 2) === 116 && text.charCodeAt(start + 3) === 97 && text.charCodeAt(start + 4) === 58) {
      const from = text.charCodeAt(start + 5) === 32 ? start + 6 : start + 5
      const value = text.slice(from, end)
      this.data = this.data === undefined ? value : `${this.data}\n${value}`
      return
    }
    const line = text.slice(start, end)
    const colon = line.indexOf(':')
    const field = colon === -1 ? line : line.slice(0, colon)
    let value = colon === -1 ? '' : line.slice(colon + 1)
    if (value.charCodeAt(0) === 32) value = value.slice(1)
    if (field === 'event') this.event = value
    else if (field === 'data') this.data = this.data === undefined ? value : `${this.data}\n${value}`
  }

  /** A blank line: the message read so far is complete. */
  private dispatch(): void {
    const event = this.event
    const data = this.data ?? ''
    if (event === null && this.data === undefined) return
    this.event = null
    this.data = undefined
    if (data === '[DONE]') {
      this.over = true
      this.sawDone = true
      if (this.options.watch) this.options.watch.done = true
      return
    }
    let parsed: unknown
    try {
      parsed = this.parse(data)
    } catch {
      return this.fail(new SyntaxError('Error reading response: malformed server-sent event JSON.'))
    }
    if (event !== null && event.startsWith('thread.')) {
      this.queue.push({ event, data: parsed })
      return
    }
    const body = parsed as { error?: unknown } | null
    if (event === 'error') return this.fail(this.options.apiError(body?.error ?? body, this.response.headers))
    if (body && body.error) return this.fail(this.options.apiError(body.error, this.response.headers))
    this.queue.push(parsed)
  }

  private fail(error: unknown): void {
    this.failure = { error }
    this.over = true
  }

  /**
   * Stops listening for the abort and cancels the body unless it ended (the rest is not wanted).
   * After `[DONE]` the body's end is usually a read away: it is read to its end instead, so the
   * connection goes back to the pool (a cancelled fetch closes its socket, and the next call
   * pays a new connection), within a few KiB and 200 ms, else cancelled.
   */
  private release(): void {
    if (this.released) return
    this.released = true
    this.options.signal.removeEventListener('abort', this.onAbort)
    if (this.bodyDone) return
    if (this.sawDone && !this.options.signal.aborted) this.drain()
    else this.reader!.cancel().catch(() => undefined)
  }

  private drain(): void {
    const reader = this.reader!
    let left = DRAIN_BYTES
    const cancel = (): void => {
      clearTimeout(timer)
      reader.cancel().catch(() => undefined)
    }
    const timer = setTimeout(cancel, DRAIN_MS)
    timer.unref?.()
    const step = (): void => {
      reader.read().then(
        (read) => {
          if (read.done) return clearTimeout(timer)
          left -= read.value.byteLength
          if (left < 0) cancel()
          else step()
        },
        () => clearTimeout(timer)
      )
    }
    step()
  }
}

/** How many of the bytes are whole UTF-8 characters: all but an incomplete sequence at the end. */
function wholeCharacters(bytes: Uint8Array): number {
  const length = bytes.length
  // Back over at most three continuation bytes to the lead byte of the last character.
  for (let i = length - 1; i >= 0 && i >= length - 4; i--) {
    const byte = bytes[i]!
    if (byte < 0x80) return length
    if (byte >= 0xc0) {
      const need = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2
      return i + need > length ? i : length
    }
  }
  return length
}
