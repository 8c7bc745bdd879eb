import { describe, expect, it } from 'vitest'
import { chatChunkParser } from '../../../src/core/runtime/openai-compatible/chunk-parser'

const chunk = (content: string, extra = '') =>
  `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m"${extra},"choices":[{"index":0,"delta":{"content":${JSON.stringify(content)}},"logprobs":null,"finish_reason":null}]}`

/** Every result equals JSON.parse's, and is a fresh object (nothing shared between two chunks). */
function same(datas: string[]) {
  const parse = chatChunkParser()
  const results: unknown[] = []
  for (const data of datas) {
    let expected: unknown
    let expectedError: unknown
    try {
      expected = JSON.parse(data)
    } catch (error) {
      expectedError = error
    }
    if (expectedError) {
      expect(() => parse(data), data).toThrow(SyntaxError)
      continue
    }
    const got = parse(data)
    expect(got, data).toEqual(expected)
    expect(JSON.stringify(got), data).toBe(JSON.stringify(expected))
    results.push(got)
  }
  return results
}

describe('chatChunkParser', () => {
  it('gives what JSON.parse gives for every chunk: escapes, quotes, unicode, empty content, raw control characters', () => {
    const contents = ['Hel', 'lo', '', ' "quoted" ', 'back\\slash', 'line\nbreak', 'é€😀', '\u2028', '</think>', '\ud800']
    const datas = contents.map((c) => chunk(c))
    // Written by hand: an escape JSON.stringify would not use, a raw newline (invalid JSON), a literal followed by more.
    const head = chunk('x').slice(0, chunk('x').indexOf('"content":') + 10)
    const tail = chunk('x').slice(chunk('x').indexOf('"x"') + 3)
    datas.push(`${head}"\\u0041\\/"${tail}`, `${head}"raw\nnewline"${tail}`, `${head}"a","content":"b"${tail}`, `${head}"a"  ${tail}`, `${head}"unterminated${tail}`)
    same([...datas, ...datas])
  })

  it('results share no object: changing one leaves the next alone', () => {
    const parse = chatChunkParser()
    parse(chunk('a'))
    const first = parse(chunk('b')) as { choices: Array<{ delta: { content: string } }> }
    const second = parse(chunk('c'))
    expect(first).toEqual(JSON.parse(chunk('b')))
    first.choices[0]!.delta.content = 'changed'
    first.choices.push({ delta: { content: 'x' } })
    expect(second).toEqual(JSON.parse(chunk('c')))
    expect(parse(chunk('d'))).toEqual(JSON.parse(chunk('d')))
  })

  it('follows a change of shape (another id, a role, a finish, usage, tool calls)', () => {
    same([
      chunk('a'),
      chunk('b'),
      chunk('c').replace('chatcmpl-1', 'chatcmpl-2'),
      chunk('d').replace('chatcmpl-1', 'chatcmpl-2'),
      chunk('e').replace('"delta":{', '"delta":{"role":"assistant",'),
      chunk('f'),
      chunk('').replace('"finish_reason":null', '"finish_reason":"stop"'),
      `{"id":"chatcmpl-1","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2}}`,
      `{"id":"chatcmpl-1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}],"content":null}}]}`,
      chunk('g'),
      chunk('h', ',"usage":{"total_tokens":3}'),
      chunk('i', ',"usage":{"total_tokens":4}')
    ])
  })

  it('a field that changes in every chunk (random padding) is read right, and after a few tries no longer learned', () => {
    const datas = Array.from({ length: 20 }, (_, i) => chunk(`t${i}`).replace(/}$/, `,"obfuscation":"o${i}"}`))
    const calls: string[] = []
    const original = JSON.parse
    JSON.parse = ((text: string, reviver?: never) => {
      calls.push(text)
      return original(text, reviver)
    }) as typeof JSON.parse
    try {
      const parse = chatChunkParser()
      for (const data of datas) expect(parse(data)).toEqual(original(data))
    } finally {
      JSON.parse = original
    }
    // One parse per chunk, plus one probe for each of the few shapes learned.
    expect(calls.length).toBeLessThanOrEqual(datas.length + 3)
  })
})
