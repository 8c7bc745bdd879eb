import { describe, expect, it } from 'vitest'
import { readSseData } from '../../../src/core/runtime/providers/cloudflare/read-sse-data'

/** A response body delivered in the given pieces, the way a socket splits it. */
function body(pieces: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  return new ReadableStream({
    start(controller) {
      for (const piece of pieces) controller.enqueue(encoder.encode(piece))
      controller.close()
    }
  })
}

async function read(pieces: string[]): Promise<{ data: string[]; activity: number }> {
  let activity = 0
  const data: string[] = []
  for await (const d of readSseData(body(pieces), () => activity++)) data.push(d)
  return { data, activity }
}

describe('readSseData (text/event-stream per the WHATWG parsing rules)', () => {
  it('reads events with CR, LF or CRLF line ends, multi-line data and comments', async () => {
    const wire = ': keep-alive\n\ndata: {"a":1}\r\n\r\ndata: line one\rdata: line two\r\rdata: [DONE]\n\n'
    expect((await read([wire])).data).toEqual(['{"a":1}', 'line one\nline two', '[DONE]'])
  })

  it('gives the same events however the bytes are split, even inside a CRLF or a multi-byte character', async () => {
    const wire = 'data: héllo 世界\r\n\r\nevent: x\r\ndata: two\r\n\r\n'
    const bytes = [...new TextEncoder().encode(wire)]
    // One byte per chunk: every boundary is exercised, including inside "世" and between \r and \n.
    let activity = 0
    const data: string[] = []
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const b of bytes) controller.enqueue(new Uint8Array([b]))
        controller.close()
      }
    })
    for await (const d of readSseData(stream, () => activity++)) data.push(d)
    expect(data).toEqual(['héllo 世界', 'two'])
    expect(activity).toBe(bytes.length)
  })

  it('still delivers a last event the server did not close with a blank line', async () => {
    expect((await read(['data: first\n\n', 'data: last'])).data).toEqual(['first', 'last'])
  })

  it('counts keep-alive comments as activity without yielding them', async () => {
    expect(await read([': ping\n\n', ': ping\n\n', 'data: x\n\n'])).toEqual({ data: ['x'], activity: 3 })
  })
})
