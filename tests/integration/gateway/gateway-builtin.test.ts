import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import OpenAI from 'openai'
import Anthropic from '@anthropic-ai/sdk'
import type { Core } from '../../../src/core'
import { MemoryBackend } from '../../../src/core/secrets'
import type { Result } from '../../../src/shared/errors/app-error'
import { tinyVocab, writeTinyLlamaGguf } from '../../fixtures/gguf/tiny-llama'
import { readyTestCore } from '../test-core'

// The local API in front of the built-in engine: a model on disk, loaded on the first request,
// answered through the real `openai` and `@anthropic-ai/sdk` clients with the engine's own token
// counts, and the call on the usage ledger under its key.
let dir: string
let core: Core
let url: string
let secret: string
const ok = <T>(r: Result<T>): T => {
  if (!r.ok) throw new Error(`${r.error.errorType}: ${r.error.message}`)
  return r.value
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sb-gateway-builtin-'))
  const dataDir = join(dir, 'data')
  mkdirSync(join(dataDir, 'models'), { recursive: true })
  writeTinyLlamaGguf(join(dataDir, 'models', 'tiny.gguf'))
  const app = await readyTestCore('sb-gateway-builtin-', { dataDir, secrets: { backend: new MemoryBackend() }, localApi: { port: 0 } })
  core = app.core
  const client = app.client
  secret = ok(await client.call('localApi.createKey', { name: 'engine' })).secret
  url = ok(await client.call('localApi.update', { enabled: true })).url!
}, 60_000)

afterAll(async () => {
  await core?.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('the local API over the built-in engine', () => {
  it('lists the model on disk and streams a Chat Completions reply with the engine’s usage', async () => {
    const sdk = new OpenAI({ apiKey: secret, baseURL: `${url}/v1`, maxRetries: 0 })
    const ids = (await sdk.models.list()).data.map((m) => m.id)
    expect(ids).toContain('builtin/tiny')
    const stream = await sdk.chat.completions.create({ model: 'builtin/tiny', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 16, temperature: 0, stream: true, stream_options: { include_usage: true } })
    let text = ''
    let usage: OpenAI.CompletionUsage | null | undefined
    let finish: string | null | undefined
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? ''
      finish = chunk.choices[0]?.finish_reason ?? finish
      if (chunk.usage) usage = chunk.usage
    }
    expect(text.length).toBeGreaterThan(0)
    expect(finish).toBe('length')
    expect(usage?.completion_tokens).toBe(16)
    expect(usage?.prompt_tokens).toBeGreaterThan(0)
    const entry = core.services().store.usage.list({ scene: 'Local API', limit: 1 })[0]!
    expect(entry).toMatchObject({ providerId: 'builtin', modelId: 'tiny' })
    expect(entry.usage?.totalOutputTokens).toBe(16)
    // The Usage page groups by key: this key's row counts the call.
    const keyId = core.services().gateway.status().keys[0]!.id
    expect(core.services().store.usage.summary('apiKey').find((r) => r.key === keyId)).toMatchObject({ calls: 1, totalTokens: expect.any(Number) })
  }, 120_000)

  it('answers Anthropic’s Messages API from the same engine', async () => {
    const sdk = new Anthropic({ apiKey: secret, baseURL: url, maxRetries: 0 })
    const message = await sdk.messages.create({ model: 'builtin/tiny', max_tokens: 8, messages: [{ role: 'user', content: 'Hi' }] })
    expect(message.content[0]).toMatchObject({ type: 'text' })
    expect(message.stop_reason).toBe('max_tokens')
    expect(message.usage.output_tokens).toBe(8)
  }, 120_000)

  it('a prompt longer than the model’s context is a 400 before any token, streamed or not, that says so', async () => {
    const sdk = new OpenAI({ apiKey: secret, baseURL: `${url}/v1`, maxRetries: 0 })
    // Byte-level vocabulary: ~1 token a character, well past the 2,048-token context.
    const long = 'word '.repeat(4_000)
    const prompts: OpenAI.ChatCompletionMessageParam[][] = [
      [{ role: 'system', content: long }, { role: 'user', content: 'hi' }],
      // A single user message too: the engine would otherwise cut it and answer what was left.
      [{ role: 'user', content: long }]
    ]
    for (const [stream, messages] of prompts.flatMap((m) => [false, true].map((s) => [s, m] as const))) {
      const error = await sdk.chat.completions
        .create({ model: 'builtin/tiny', max_tokens: 8, stream, messages })
        .then(
          () => undefined,
          (e: unknown) => e
        )
      expect(error, `stream: ${stream}, ${messages[0]!.role} long`).toBeInstanceOf(OpenAI.APIError)
      expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(400)
      expect((error as Error).message).toMatch(/ExceededContextWindow.*longer than the model's context/)
    }
    // Older turns over the context are still dropped to make room, as before.
    const reply = await sdk.chat.completions.create({ model: 'builtin/tiny', max_tokens: 4, messages: [{ role: 'user', content: long }, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'hi' }] })
    expect(reply.choices[0]!.finish_reason).toBe('length')
  }, 120_000)

  it('json_object mode gives a JSON object from the engine', async () => {
    const sdk = new OpenAI({ apiKey: secret, baseURL: `${url}/v1`, maxRetries: 0 })
    const reply = await sdk.chat.completions.create({ model: 'builtin/tiny', max_tokens: 200, temperature: 0, response_format: { type: 'json_object' }, messages: [{ role: 'user', content: 'Give me JSON' }] })
    const text = reply.choices[0]!.message.content!
    expect(typeof JSON.parse(text)).toBe('object')
  }, 120_000)

  it('the streamed message_start reports the prompt’s input tokens, and the end the engine’s own count', async () => {
    const sdk = new Anthropic({ apiKey: secret, baseURL: url, maxRetries: 0 })
    const stream = sdk.messages.stream({ model: 'builtin/tiny', max_tokens: 4, messages: [{ role: 'user', content: 'Tell me about the weather in Paris today.' }] })
    let startInput: number | undefined
    stream.on('streamEvent', (event) => {
      if (event.type === 'message_start') startInput = event.message.usage.input_tokens
    })
    const final = await stream.finalMessage()
    expect(startInput).toBeGreaterThan(0)
    expect(final.usage.input_tokens).toBeGreaterThan(0)
  }, 120_000)

  it('embeds token ids as the model’s own tokens, and names an id outside its vocabulary', async () => {
    const sdk = new OpenAI({ apiKey: secret, baseURL: `${url}/v1`, maxRetries: 0 })
    const text = await sdk.embeddings.create({ model: 'builtin/tiny', input: 'hello world', encoding_format: 'float' })
    const ids = await sdk.embeddings.create({ model: 'builtin/tiny', input: [[40, 41, 42], [43, 44]], encoding_format: 'float' })
    expect(ids.data).toHaveLength(2)
    expect(ids.data[0]!.embedding).toHaveLength(text.data[0]!.embedding.length)
    expect(ids.data[0]!.embedding).not.toEqual(ids.data[1]!.embedding)
    // The engine counts the ids it was given.
    expect(ids.usage.prompt_tokens).toBe(5)
    const again = await sdk.embeddings.create({ model: 'builtin/tiny', input: [40, 41, 42], encoding_format: 'float' })
    expect(again.data[0]!.embedding).toEqual(ids.data[0]!.embedding)
    const error = await sdk.embeddings.create({ model: 'builtin/tiny', input: [40, 999_999] }).then(() => undefined, (e: unknown) => e)
    expect(error).toBeInstanceOf(OpenAI.BadRequestError)
    expect((error as Error).message).toMatch(/token id 999999 is not in this model's vocabulary \(0 to \d+\)/)
    // The engine is still there for the next call.
    expect((await sdk.embeddings.create({ model: 'builtin/tiny', input: [40], encoding_format: 'float' })).data).toHaveLength(1)
  })

  it('ends the reply at a stop sequence, which is not part of it, streamed or not', async () => {
    const sdk = new OpenAI({ apiKey: secret, baseURL: `${url}/v1`, maxRetries: 0 })
    const ask = { model: 'builtin/tiny', max_tokens: 24, temperature: 0, seed: 1, messages: [{ role: 'user' as const, content: 'Say something long' }] }
    const free = (await sdk.chat.completions.create(ask)).choices[0]!.message.content ?? ''
    // A piece of the free reply past its start: the same reply with it as a stop ends just before it.
    const at = [...free].findIndex((ch, i) => i >= 2 && ch.trim() !== '' && !free.slice(0, i).includes(ch))
    expect(at, `a stop point in ${JSON.stringify(free)}`).toBeGreaterThan(0)
    const stop = free[at]!
    const stopped = (await sdk.chat.completions.create({ ...ask, stop: [stop] })).choices[0]!
    expect(stopped.message.content).toBe(free.slice(0, at))
    expect(stopped.finish_reason).toBe('stop')
    let streamed = ''
    for await (const chunk of await sdk.chat.completions.create({ ...ask, stop: [stop], stream: true })) streamed += chunk.choices[0]?.delta.content ?? ''
    expect(streamed).toBe(free.slice(0, at))
  })
  it('logit_bias −100 bans a token: the tokens that could begin the reply at temperature 0 banned, it begins otherwise', async () => {
    const sdk = new OpenAI({ apiKey: secret, baseURL: `${url}/v1`, maxRetries: 0 })
    const ask = { model: 'builtin/tiny', max_tokens: 8, temperature: 0, messages: [{ role: 'user' as const, content: 'Hello' }] }
    const free = (await sdk.chat.completions.create(ask)).choices[0]!.message.content ?? ''
    expect(free.length).toBeGreaterThan(0)
    // Every piece of the vocabulary that starts with the reply's first character (its first token is one of them).
    const pieceText = (t: string): string => {
      const byte = /^<0x([0-9A-F]{2})>$/.exec(t)
      return byte ? String.fromCharCode(parseInt(byte[1]!, 16)) : t.replace(/▁/g, ' ')
    }
    const first = free[0]!
    const banned = Object.fromEntries(tinyVocab().tokens.flatMap((t, id) => (pieceText(t).startsWith(first) ? [[String(id), -100]] : [])))
    expect(Object.keys(banned).length).toBeGreaterThan(0)
    const biased = (await sdk.chat.completions.create({ ...ask, logit_bias: banned })).choices[0]!.message.content ?? ''
    expect(biased.length).toBeGreaterThan(0)
    expect(biased[0]).not.toBe(first)
  }, 120_000)

  it('a logit_bias token id outside the vocabulary is a 400 naming it; logprobs are refused by name', async () => {
    const sdk = new OpenAI({ apiKey: secret, baseURL: `${url}/v1`, maxRetries: 0 })
    for (const stream of [false, true]) {
      const error = await sdk.chat.completions.create({ model: 'builtin/tiny', max_tokens: 4, stream, logit_bias: { '999999': 5 }, messages: [{ role: 'user', content: 'Hi' }] }).then(() => undefined, (e: unknown) => e)
      expect(error, `stream: ${stream}`).toBeInstanceOf(OpenAI.BadRequestError)
      expect((error as Error).message).toMatch(/token id 999999 is not in this model's vocabulary \(0 to \d+\)/)
    }
    const error = await sdk.chat.completions.create({ model: 'builtin/tiny', max_tokens: 4, logprobs: true, messages: [{ role: 'user', content: 'Hi' }] }).then(() => undefined, (e: unknown) => e)
    expect(error).toBeInstanceOf(OpenAI.BadRequestError)
    expect((error as Error).message).toMatch(/builtin.*logprobs/)
    // The engine is still there for the next call.
    expect((await sdk.chat.completions.create({ model: 'builtin/tiny', max_tokens: 2, messages: [{ role: 'user', content: 'Hi' }] })).choices[0]!.finish_reason).toBe('length')
  }, 120_000)
})
