import { describe, expect, it } from 'vitest'
import { sseJsonStream } from '../../../src/core/runtime/stream/sse-json'

class ApiError extends Error {
  constructor(readonly error: unknown) {
    super(JSON.stringify(error))
  }
}

/** A response whose body arrives in the given pieces (each one network read); `cancelled` tells whether the reader gave up on it. */
function body(pieces: Array<string | Uint8Array>, options: { hold?: boolean } = {}) {
  const state = { cancelled: false, pulled: 0 }
  const encoder = new TextEncoder()
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (state.pulled < pieces.length) {
        const piece = pieces[state.pulled++]!
        controller.enqueue(typeof piece === 'string' ? encoder.encode(piece) : piece)
      } else if (!options.hold) controller.close()
    },
    cancel() {
      state.cancelled = true
    }
  })
  return { response: new Response(stream, { headers: { 'content-type': 'text/event-stream' } }), state }
}

async function read(pieces: Array<string | Uint8Array>, signal = new AbortController().signal) {
  const out: unknown[] = []
  let error: unknown
  try {
    for await (const value of sseJsonStream(body(pieces).response, { signal, apiError: (e) => new ApiError(e) })) out.push(value)
  } catch (e) {
    error = e
  }
  return { out, error }
}

describe('sseJsonStream', () => {
  it('gives every message whatever the network cuts: LF, CRLF and CR line ends, split lines, a UTF-8 character split in two', async () => {
    const text = 'data: {"a":1}\n\n: keep-alive\n\ndata: {"b":"é€😀"}\r\n\r\nid: 7\nretry: 10\ndata:{"c":[1,2]}\r\rdata: {"d":\ndata: 4}\n\n'
    const bytes = new TextEncoder().encode(text)
    const expected = [{ a: 1 }, { b: 'é€😀' }, { c: [1, 2] }, { d: 4 }]
    for (let cut = 0; cut <= bytes.length; cut++) {
      const { out, error } = await read([bytes.subarray(0, cut), bytes.subarray(cut)])
      expect(error, `cut at ${cut}`).toBeUndefined()
      expect(out, `cut at ${cut}`).toEqual(expected)
    }
    expect((await read([...text].map((c) => c))).out).toEqual(expected)
    expect((await read([...bytes].map((b) => new Uint8Array([b])))).out).toEqual(expected)
  })

  it('a byte order mark at the start is dropped; malformed UTF-8 becomes U+FFFD, also when the body ends inside a character', async () => {
    const bom = new Uint8Array([0xef, 0xbb, 0xbf])
    const bad = new Uint8Array([...new TextEncoder().encode('data: {"a":"x'), 0xff, ...new TextEncoder().encode('"}\n\ndata: {"b":"')])
    expect((await read([bom, 'data: {"a":1}\n\n'])).out).toEqual([{ a: 1 }])
    const { out, error } = await read([bad, new Uint8Array([0xe2, 0x82])])
    expect(out).toEqual([{ a: 'x\ufffd' }])
    // The last message is cut off inside its string: not JSON, as with any cut body.
    expect(error).toBeInstanceOf(SyntaxError)
  })

  it('stops at [DONE] and cancels the rest of a body that does not end soon after', async () => {
    const { response, state } = body(['data: {"a":1}\n\ndata: [DONE]\n\ndata: {"b":2}\n\n'], { hold: true })
    const out: unknown[] = []
    for await (const value of sseJsonStream(response, { signal: new AbortController().signal, apiError: (e) => new ApiError(e) })) out.push(value)
    expect(out).toEqual([{ a: 1 }])
    await expect.poll(() => state.cancelled, { timeout: 3_000 }).toBe(true)
  })

  it('reads a body that ends right after [DONE] to its end rather than cancelling it (a cancelled body costs the connection its keep-alive)', async () => {
    const { response, state } = body(['data: {"a":1}\n\ndata: [DONE]\n\n', '\n'])
    const out: unknown[] = []
    for await (const value of sseJsonStream(response, { signal: new AbortController().signal, apiError: (e) => new ApiError(e) })) out.push(value)
    expect(out).toEqual([{ a: 1 }])
    await expect.poll(() => state.pulled, { timeout: 1_000 }).toBe(2)
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(state.cancelled).toBe(false)
  })

  it('a last message without the blank line after it still counts', async () => {
    expect((await read(['data: {"a":1}\n\ndata: {"b":2}'])).out).toEqual([{ a: 1 }, { b: 2 }])
  })

  it('a message that is not JSON throws a SyntaxError after the messages before it', async () => {
    const { out, error } = await read(['data: {"a":1}\n\ndata: {"b":\n\ndata: {"c":3}\n\n'])
    expect(out).toEqual([{ a: 1 }])
    expect(error).toBeInstanceOf(SyntaxError)
    expect((error as Error).message).toBe('Error reading response: malformed server-sent event JSON.')
  })

  it('an error event or a message with an error field throws the API error, after the messages before it', async () => {
    const inField = await read(['data: {"a":1}\n\ndata: {"error":{"message":"over quota","code":"insufficient_quota"}}\n\n'])
    expect(inField.out).toEqual([{ a: 1 }])
    expect((inField.error as ApiError).error).toEqual({ message: 'over quota', code: 'insufficient_quota' })
    const asEvent = await read(['event: error\ndata: {"message":"boom"}\n\n'])
    expect((asEvent.error as ApiError).error).toEqual({ message: 'boom' })
  })

  it('thread events come with their name, as the SDK gives them', async () => {
    expect((await read(['event: thread.run.created\ndata: {"id":"r"}\n\n'])).out).toEqual([{ event: 'thread.run.created', data: { id: 'r' } }])
  })

  it('an abort ends the iteration quietly and cancels the body', async () => {
    const controller = new AbortController()
    const { response, state } = body(['data: {"a":1}\n\n'], { hold: true })
    const out: unknown[] = []
    const reading = (async () => {
      for await (const value of sseJsonStream(response, { signal: controller.signal, apiError: (e) => new ApiError(e) })) out.push(value)
    })()
    await new Promise((resolve) => setTimeout(resolve, 20))
    controller.abort()
    await reading
    expect(out).toEqual([{ a: 1 }])
    expect(state.cancelled).toBe(true)
  })

  it('a consumer that stops early cancels the body', async () => {
    const { response, state } = body(['data: {"a":1}\n\ndata: {"b":2}\n\n'], { hold: true })
    for await (const value of sseJsonStream(response, { signal: new AbortController().signal, apiError: (e) => new ApiError(e) })) {
      expect(value).toEqual({ a: 1 })
      break
    }
    expect(state.cancelled).toBe(true)
  })

  it('a read that fails is thrown', async () => {
    let pulls = 0
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pulls++ === 0) controller.enqueue(new TextEncoder().encode('data: {"a":1}\n\n'))
        else controller.error(new TypeError('terminated'))
      }
    })
    const out: unknown[] = []
    await expect(
      (async () => {
        for await (const value of sseJsonStream(new Response(stream), { signal: new AbortController().signal, apiError: (e) => new ApiError(e) })) out.push(value)
      })()
    ).rejects.toThrow('terminated')
    expect(out).toEqual([{ a: 1 }])
  })
})
