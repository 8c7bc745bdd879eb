import { createParser } from 'eventsource-parser'

/**
 * The `data:` payloads of a text/event-stream body, one string per event, parsed by
 * eventsource-parser (the WHATWG rules: CR, LF and CRLF line ends, multi-line data, comments).
 * Every received byte counts as activity (keep-alive comments included) for the idle watchdog;
 * `[DONE]` is yielded like any payload so the transformer can see the end marker. An event the
 * server did not close with a blank line before ending the body is still delivered.
 */
export async function* readSseData(body: ReadableStream<Uint8Array>, activity: () => void = () => {}): AsyncGenerator<string> {
  const decoder = new TextDecoder()
  let ready: string[] = []
  const parser = createParser({
    onEvent: (event) => {
      if (event.data) ready.push(event.data)
    }
  })
  const drain = function* (): Generator<string> {
    const batch = ready
    ready = []
    yield* batch
  }
  for await (const bytes of body as unknown as AsyncIterable<Uint8Array>) {
    activity()
    parser.feed(decoder.decode(bytes, { stream: true }))
    yield* drain()
  }
  parser.feed(`${decoder.decode()}\n\n`)
  yield* drain()
}
