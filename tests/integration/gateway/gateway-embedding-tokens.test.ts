import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import OpenAI from 'openai'
import { MemoryBackend } from '../../../src/core/secrets'
import { startFakeOpenAI, type FakeOpenAI } from '../../fixtures/fake-openai'
import { ok, readyTestCore, type TestCore } from '../test-core'

// Token ids as embedding input (OpenAI's and llama.cpp's `input` as integers), through the real
// `openai` SDK: passed on to an upstream whose API takes them, refused by name by one that takes
// only text, and malformed lists refused with words that say what to send.
let fake: FakeOpenAI
let t: TestCore
let url: string
let secret: string

beforeAll(async () => {
  fake = await startFakeOpenAI()
  t = await readyTestCore('sb-gw-tokens-', { secrets: { backend: new MemoryBackend() }, localApi: { port: 0 } })
  ok(await t.client.call('providers.update', { providerId: 'openai', baseURL: fake.url }))
  ok(await t.client.call('providers.setKey', { providerId: 'openai', apiKey: 'sk-upstream-0123456789' }))
  // Nothing listens here: a refusal must come before any request.
  ok(await t.client.call('providers.update', { providerId: 'ollama', baseURL: 'http://127.0.0.1:9' }))
  secret = ok(await t.client.call('localApi.createKey', { name: 'tokens' })).secret
  url = ok(await t.client.call('localApi.update', { enabled: true })).url!
}, 60_000)

afterAll(async () => {
  await t?.close()
  await fake?.close()
})

const sdk = () => new OpenAI({ apiKey: secret, baseURL: `${url}/v1`, maxRetries: 0 })
const vectors = (n: number) => ({ object: 'list', data: Array.from({ length: n }, (_, index) => ({ object: 'embedding', index, embedding: [index, 0.5, -0.5] })), model: 'text-embedding-3-small', usage: { prompt_tokens: 5, total_tokens: 5 } })

describe('token ids as embedding input', () => {
  it('reach an OpenAI upstream as the integers the client sent, one list or many', async () => {
    fake.enqueue('/embeddings', { kind: 'json', body: vectors(1) }, { kind: 'json', body: vectors(2) })
    const one = await sdk().embeddings.create({ model: 'openai/text-embedding-3-small', input: [9906, 1917], encoding_format: 'float' })
    expect(one.data.map((d) => d.embedding)).toEqual([[0, 0.5, -0.5]])
    const many = await sdk().embeddings.create({ model: 'openai/text-embedding-3-small', input: [[9906, 1917], [15339]], encoding_format: 'float' })
    expect(many.data).toHaveLength(2)
    const sent = fake.requestsTo('/embeddings').map((r) => (r.body as { input: unknown }).input)
    expect(sent).toEqual([[[9906, 1917]], [[9906, 1917], [15339]]])
    expect(t.core.services().store.usage.list().filter((e) => e.kind === 'embedding' && e.scene === 'Local API')).toHaveLength(2)
  })

  it('are refused by name, before any request, by a provider that embeds only text', async () => {
    const error = await sdk()
      .embeddings.create({ model: 'ollama/nomic-embed-text', input: [1, 2, 3] })
      .then(() => undefined, (e: unknown) => e)
    expect(error).toBeInstanceOf(OpenAI.BadRequestError)
    expect((error as Error).message).toMatch(/ollama takes text for embeddings, not token ids/)
  })

  it('malformed input is a 400 that says what to send', async () => {
    const before = fake.requestsTo('/embeddings').length
    for (const [input, message] of [
      ['', /must not be empty/],
      [['a', ''], /must not be empty/],
      [[], /must not be an empty list/],
      [[[1, 2], []], /list of token ids must not be empty/],
      [['a', 1], /mixes texts and token ids/],
      [[1.5, 2], /whole numbers/],
      [[-1], /whole numbers/],
      [{ text: 'a' }, /must be a string, a list of strings/]
    ] as const) {
      const error = await sdk()
        .embeddings.create({ model: 'openai/text-embedding-3-small', input: input as string })
        .then(() => undefined, (e: unknown) => e)
      expect(error, JSON.stringify(input)).toBeInstanceOf(OpenAI.BadRequestError)
      expect((error as Error).message, JSON.stringify(input)).toMatch(message)
    }
    expect(fake.requestsTo('/embeddings')).toHaveLength(before)
  })
})
