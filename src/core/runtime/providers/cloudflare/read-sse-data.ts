/**
 * The `data:` payloads of a text/event-stream body, one string per event. Every received
 * byte counts as activity (keep-alive comments included) for the idle watchdog; `[DONE]`
 * is yielded like any payload so the transformer can see the end marker.
 */
export async function* readSseData(body: ReadableStream<Uint8Array>, activity: () => void = () => {}): AsyncGenerator<string> {
  const decoder = new TextDecoder()
  let buffer = ''
  const eventsIn = function* (final: boolean): Generator<string> {
    const parts = buffer.split(/\r?\n\r?\n/)
    buffer = final ? '' : (parts.pop() ?? '')
    for (const part of parts) {
      const data = part
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''))
        .join('\n')
      if (data) yield data
    }
  }
  for await (const bytes of body as unknown as AsyncIterable<Uint8Array>) {
    activity()
    buffer += decoder.decode(bytes, { stream: true })
    yield* eventsIn(false)
  }
  buffer += decoder.decode()
  if (buffer.trim()) {
    buffer += '\n\n'
    yield* eventsIn(true)
  }
}
