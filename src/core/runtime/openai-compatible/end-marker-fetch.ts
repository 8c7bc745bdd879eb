/**
 * Wraps fetch so we learn whether an SSE body ended with its `[DONE]` marker (the SDK
 * swallows it) and so every received byte, keep-alive comments included, counts as
 * activity for the idle watchdog. Only the last few bytes are kept: no per-event cost.
 */
export interface StreamWatch {
  /** `[DONE]` was the last thing the server sent. */
  done: boolean
  onBytes?: () => void
}

const MARKER = '[DONE]'

export function endMarkerFetch(base: typeof fetch, watch: StreamWatch): typeof fetch {
  return async (input, init) => {
    const response = await base(input, init)
    if (!response.body || !(response.headers.get('content-type') ?? '').includes('text/event-stream')) return response
    let tail = ''
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          watch.onBytes?.()
          const start = Math.max(0, chunk.length - 16)
          tail = (tail + String.fromCharCode(...chunk.subarray(start))).slice(-24)
          // Checked per chunk: the SDK stops reading at [DONE], so flush may never run.
          if (tail.includes(MARKER)) watch.done = true
          controller.enqueue(chunk)
        }
      })
    )
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers })
  }
}
