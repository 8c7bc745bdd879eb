/**
 * Wraps fetch so we learn whether an SSE body ended with its `[DONE]` marker (the SDK
 * swallows it) and so every received byte, keep-alive comments included, counts as
 * activity for the idle watchdog. The body's reader is observed in place rather than piped
 * through a TransformStream: an extra stream stage adds a queue hop per network read and
 * measurably slows long streams. Only the last few bytes are kept.
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
    const body = response.body
    if (!body || !(response.headers.get('content-type') ?? '').includes('text/event-stream')) return response
    let tail = ''
    const observe = (chunk: Uint8Array) => {
      watch.onBytes?.()
      const start = Math.max(0, chunk.length - 16)
      tail = (tail + String.fromCharCode(...chunk.subarray(start))).slice(-24)
      // Checked per read: the SDK stops reading at [DONE], so there may be no later chance.
      if (tail.includes(MARKER)) watch.done = true
    }
    const getReader = body.getReader.bind(body) as () => ReadableStreamDefaultReader<Uint8Array>
    Object.defineProperty(body, 'getReader', {
      configurable: true,
      value: () => {
        const reader = getReader()
        const read = reader.read.bind(reader)
        Object.defineProperty(reader, 'read', {
          configurable: true,
          value: () =>
            read().then((result) => {
              if (!result.done && result.value) observe(result.value)
              return result
            })
        })
        return reader
      }
    })
    return response
  }
}
