import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import OpenAI from 'openai'
import Anthropic from '@anthropic-ai/sdk'
import { createCore, type Core } from '../../../src/core'
import { createInProcessClient } from '../../../src/core/bridge/in-process'
import { MemoryBackend } from '../../../src/core/secrets'
import type { Result } from '../../../src/shared/errors/app-error'
import { createAppGatewayBackend } from '../../../src/core/gateway/app-backend'
import { startGatewayServer, type GatewayServer } from '../../../src/core/gateway/gateway-server'
import { newApiKey, type StoredApiKey } from '../../../src/core/gateway/access'
import { chatChunks, errorBody, startFakeOpenAI, type FakeOpenAI } from '../../fixtures/fake-openai'
import { loadProviderModels } from '../../../src/shared/catalogue/loader'

// The real `openai` and `@anthropic-ai/sdk` clients against the gateway, with a cloud provider
// (the fake OpenAI server, reached through the app's real runtime and SDK) behind it.
let fake: FakeOpenAI
let core: Core
let gateway: GatewayServer
let secret: string
const keys: StoredApiKey[] = []

const ok = <T>(r: Result<T>) => {
  if (!r.ok) throw new Error(r.error.message)
  return r.value
}

const toolCallChunks = (name: string, args: string[]): unknown[] => {
  const base = { id: 'chatcmpl-tools', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'gpt-4o-mini' }
  return [
    { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: null, tool_calls: [{ index: 0, id: 'call_abc', type: 'function', function: { name, arguments: '' } }] }, finish_reason: null }] },
    ...args.map((a) => ({ ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: a } }] }, finish_reason: null }] })),
    { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] },
    { ...base, choices: [], usage: { prompt_tokens: 20, completion_tokens: 9, total_tokens: 29 } }
  ]
}

beforeAll(async () => {
  fake = await startFakeOpenAI()
  core = createCore({ dataDir: mkdtempSync(join(tmpdir(), 'sb-gateway-')), mode: 'test', secrets: { backend: new MemoryBackend() } })
  await core.context.init.start()
  const client = createInProcessClient(core.router).client
  ok(await client.call('providers.update', { providerId: 'openai', baseURL: fake.url }))
  ok(await client.call('providers.setKey', { providerId: 'openai', apiKey: 'sk-upstream-SECRET-0123456789' }))
  ok(await client.call('providers.setModelEnabled', { providerId: 'openai', modelId: 'gpt-4o-mini', enabled: true }))
  const created = newApiKey()
  secret = created.secret
  keys.push({ id: 'k1', name: 'tests', prefix: created.prefix, hash: created.hash, createdAt: Date.now() })
  const backend = createAppGatewayBackend({ caller: core.services().caller, providers: core.services().providers, usage: core.services().store.usage, builtin: core.services().engine })
  gateway = await startGatewayServer({ host: '127.0.0.1', port: 0, backend, config: () => ({ keys, aliases: { fast: 'openai/gpt-4o-mini' }, allowedOrigins: [], allowedHosts: [] }) })
})

afterAll(async () => {
  await gateway?.close()
  await core?.close()
  await fake?.close()
})

const openai = () => new OpenAI({ apiKey: secret, baseURL: `${gateway.url}/v1`, maxRetries: 0 })
const anthropic = () => new Anthropic({ apiKey: secret, baseURL: gateway.url, maxRetries: 0 })

describe('OpenAI Chat Completions through the gateway', () => {
  it('streams text with usage, and the upstream got the model without its provider prefix and no gateway key', async () => {
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['Hel', 'lo', ' there'], { usage: { prompt_tokens: 11, completion_tokens: 3, total_tokens: 14 } }) })
    const stream = await openai().chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } })
    let text = ''
    let usage: OpenAI.CompletionUsage | undefined | null
    let finish: string | null | undefined
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? ''
      finish = chunk.choices[0]?.finish_reason ?? finish
      if (chunk.usage) usage = chunk.usage
    }
    expect(text).toBe('Hello there')
    expect(finish).toBe('stop')
    expect(usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 3, total_tokens: 14 })
    const upstream = fake.requestsTo('/chat/completions').at(-1)!
    expect((upstream.body as { model: string }).model).toBe('gpt-4o-mini')
    expect(upstream.headers.authorization).toBe('Bearer sk-upstream-SECRET-0123456789')
    expect(JSON.stringify(upstream.headers)).not.toContain(secret)
  })

  it('with include_usage every chunk but the usage one carries usage: null, as OpenAI writes them; without it none has the field', async () => {
    const read = async (includeUsage: boolean) => {
      fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['a', 'b'], { usage: { prompt_tokens: 2, completion_tokens: 2, total_tokens: 4 } }) })
      const stream = await openai().chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream: true, ...(includeUsage ? { stream_options: { include_usage: true } } : {}) })
      const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = []
      for await (const chunk of stream) chunks.push(chunk)
      return chunks
    }
    const withUsage = await read(true)
    expect(withUsage.length).toBeGreaterThan(3)
    for (const chunk of withUsage.slice(0, -1)) expect(chunk).toHaveProperty('usage', null)
    expect(withUsage.at(-1)!.usage).toMatchObject({ total_tokens: 4 })
    for (const chunk of await read(false)) expect(chunk).not.toHaveProperty('usage')
  })

  it('on the wire: every text delta is its own SSE message, byte for byte the chunk JSON, non-ASCII and escapes intact', async () => {
    const pieces = ['Hé', 'llo "q"', '\n😀', '\\', '<b>', 'end']
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(pieces, { usage: { prompt_tokens: 2, completion_tokens: 6, total_tokens: 8 } }) })
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
      body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } })
    })
    const messages = (await response.text()).split('\n\n')
    expect(messages.pop()).toBe('')
    expect(messages.pop()).toBe('data: [DONE]')
    expect(messages.every((m) => m.startsWith('data: '))).toBe(true)
    const chunks = messages.map((m) => m.slice('data: '.length))
    const { id, created } = JSON.parse(chunks[0]!) as { id: string; created: number }
    const head = `{"id":${JSON.stringify(id)},"object":"chat.completion.chunk","created":${created},"model":"openai/gpt-4o-mini","system_fingerprint":null,"choices":[`
    expect(chunks).toEqual([
      `${head}{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}],"usage":null}`,
      ...pieces.map((p) => `${head}{"index":0,"delta":{"content":${JSON.stringify(p)}},"logprobs":null,"finish_reason":null}],"usage":null}`),
      `${head}{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"usage":null}`,
      `${head}],"usage":{"prompt_tokens":2,"completion_tokens":6,"total_tokens":8}}`
    ])
  })

  it('answers without streaming, through an alias, and logs the call under the key with its cost', async () => {
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['Four'], { usage: { prompt_tokens: 1_000_000, completion_tokens: 1_000_000, total_tokens: 2_000_000 } }) })
    const before = core.services().store.usage.spentByKey('k1')
    const reply = await openai().chat.completions.create({ model: 'fast', messages: [{ role: 'user', content: '2+2?' }] })
    expect(reply.object).toBe('chat.completion')
    expect(reply.choices[0]!.message.content).toBe('Four')
    expect(reply.usage?.total_tokens).toBe(2_000_000)
    const after = core.services().store.usage.spentByKey('k1')
    expect(after.calls).toBe(before.calls + 1)
    // gpt-4o-mini: $0.15 in + $0.60 out per million.
    expect(after.usd - before.usd).toBeCloseTo(0.75, 6)
    const entry = core.services().store.usage.list({ scene: 'Local API', limit: 1 })[0]!
    expect(entry).toMatchObject({ scene: 'Local API', providerId: 'openai', modelId: 'gpt-4o-mini', apiKeyId: 'k1' })
  })

  it('round-trips a tool call: the call streams as deltas, the result goes back as a tool message', async () => {
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: toolCallChunks('get_weather', ['{"city":', '"Paris"}']) })
    const tools: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }]
    const runner = openai().chat.completions.stream({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'weather in Paris?' }], tools })
    const first = await runner.finalChatCompletion()
    const call = first.choices[0]!.message.tool_calls![0]!
    expect(first.choices[0]!.finish_reason).toBe('tool_calls')
    expect(call).toMatchObject({ id: 'call_abc', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } })
    expect((fake.requestsTo('/chat/completions').at(-1)!.body as { tools: unknown[] }).tools).toHaveLength(1)

    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['Sunny in Paris']) })
    const second = await openai().chat.completions.create({
      model: 'openai/gpt-4o-mini',
      messages: [{ role: 'user', content: 'weather in Paris?' }, first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: '{"sky":"sunny"}' }],
      tools
    })
    expect(second.choices[0]!.message.content).toBe('Sunny in Paris')
    const sent = fake.requestsTo('/chat/completions').at(-1)!.body as { messages: Array<Record<string, unknown>> }
    expect(sent.messages[1]).toMatchObject({ role: 'assistant', tool_calls: [{ id: 'call_abc', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] })
    expect(sent.messages[2]).toMatchObject({ role: 'tool', tool_call_id: 'call_abc', content: '{"sky":"sunny"}' })
  })

  it('passes a JSON schema response_format through to the provider', async () => {
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['{"n":4}']) })
    const format = { type: 'json_schema' as const, json_schema: { name: 'answer', schema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] }, strict: true } }
    const reply = await openai().chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: '2+2' }], response_format: format })
    expect(JSON.parse(reply.choices[0]!.message.content!)).toEqual({ n: 4 })
    expect((fake.requestsTo('/chat/completions').at(-1)!.body as { response_format: unknown }).response_format).toEqual(format)
  })

  it('logprobs, top_logprobs and logit_bias are refused by name, not dropped; their off values are fine', async () => {
    for (const [extra, param] of [[{ logprobs: true }, 'logprobs'], [{ top_logprobs: 2, logprobs: true }, 'logprobs'], [{ logit_bias: { '50256': -100 } }, 'logit_bias']] as const) {
      const error = await openai()
        .chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], ...extra })
        .then(() => undefined, (e: unknown) => e)
      expect(error).toBeInstanceOf(OpenAI.BadRequestError)
      expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe(param)
    }
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['ok']) })
    const reply = await openai().chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], logprobs: false, logit_bias: {} })
    expect(reply.choices[0]!.message.content).toBe('ok')
  })

  it('passes stop sequences through to the provider, one string or a list', async () => {
    for (const stop of ['END', ['END', '###']]) {
      fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['1 2 3']) })
      await openai().chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'count' }], stop })
      expect((fake.requestsTo('/chat/completions').at(-1)!.body as { stop?: unknown }).stop).toEqual(typeof stop === 'string' ? [stop] : stop)
    }
  })

  it('a caching breakpoint (Anthropic’s) is not sent to an OpenAI-compatible upstream', async () => {
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['ok']) })
    await anthropic().messages.create({
      model: 'openai/gpt-4o-mini',
      max_tokens: 16,
      system: [{ type: 'text', text: 'be brief', cache_control: { type: 'ephemeral', ttl: '1h' } }],
      tools: [{ name: 'read', input_schema: { type: 'object', properties: {} }, cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }] }]
    })
    expect(JSON.stringify(fake.requestsTo('/chat/completions').at(-1)!.body)).not.toContain('cache_control')
  })

  it('an upstream error before the first token is the API error with its status', async () => {
    fake.enqueue('/chat/completions', { kind: 'json', status: 404, body: errorBody('The model `gpt-x` does not exist', 'model_not_found') })
    const error = await openai()
      .chat.completions.create({ model: 'openai/gpt-x', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(OpenAI.NotFoundError)
    expect((error as InstanceType<typeof OpenAI.APIError>).message).toContain('does not exist')
  })

  it('an upstream that fails mid-stream ends the client stream with an APIError, after the text it had', async () => {
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['partial ', 'answer', ' never', ' ends'], { finishReason: null }), truncateAfter: 3 })
    const stream = await openai().chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream: true })
    let text = ''
    const error = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? ''
    })().catch((e: unknown) => e)
    expect(text).toBe('partial answer')
    expect(error).toBeInstanceOf(OpenAI.APIError)
  })
})

describe('embeddings and models', () => {
  it('an empty input and token-id input are 400s that say why, as OpenAI refuses them', async () => {
    for (const [input, message] of [
      ['', /must not be empty/],
      [['a', ''], /must not be empty/],
      [[1, 2, 3], /token-id input is not offered/],
      [[[1, 2], [3]], /token-id input is not offered/]
    ] as const) {
      const error = await openai()
        .embeddings.create({ model: 'openai/text-embedding-3-small', input: input as string })
        .then(() => undefined, (e: unknown) => e)
      expect(error, JSON.stringify(input)).toBeInstanceOf(OpenAI.BadRequestError)
      expect((error as Error).message).toMatch(message)
    }
  })

  it('the SDK gets float vectors back through its default base64 encoding', async () => {
    fake.enqueue('/embeddings', { kind: 'json', body: { object: 'list', data: [{ object: 'embedding', index: 0, embedding: [0.5, -0.25, 0.125] }, { object: 'embedding', index: 1, embedding: [1, 0, -1] }], model: 'text-embedding-3-small', usage: { prompt_tokens: 4, total_tokens: 4 } } })
    const result = await openai().embeddings.create({ model: 'openai/text-embedding-3-small', input: ['a', 'b'] })
    expect(result.data.map((d) => d.embedding)).toEqual([
      [0.5, -0.25, 0.125],
      [1, 0, -1]
    ])
    expect(result.usage.prompt_tokens).toBe(4)
    // The call went through the one caller: one line of kind embedding, the key's, priced from the catalogue.
    const line = core.services().store.usage.list().find((e) => e.kind === 'embedding' && e.scene === 'Local API')
    expect(line).toMatchObject({ providerId: 'openai', modelId: 'text-embedding-3-small', apiKeyId: 'k1' })
    expect(line!.usage?.totalTokens).toBe(4)
    const unit = (await loadProviderModels('openai')).find((m) => m.id === 'text-embedding-3-small')!.pricing!.units.find((u) => u.name === 'textInput')!
    expect(line!.cost?.total).toBeCloseTo((4 * (unit as { rate: number }).rate) / 1_000_000, 12)
  })

  it('lists provider/model ids and the aliases', async () => {
    const page = await openai().models.list()
    const ids = page.data.map((m) => m.id)
    expect(ids).toContain('openai/gpt-4o-mini')
    expect(ids).toContain('fast')
  })
})

describe('OpenAI Responses through the gateway', () => {
  it('streams text events the SDK accumulates into a final response', async () => {
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['Bonjour', ' !'], { usage: { prompt_tokens: 6, completion_tokens: 2, total_tokens: 8 } }) })
    const stream = openai().responses.stream({ model: 'openai/gpt-4o-mini', input: 'Say hello in French', instructions: 'Be brief' })
    const deltas: string[] = []
    stream.on('response.output_text.delta', (e) => deltas.push(e.delta))
    const final = await stream.finalResponse()
    expect(deltas.join('')).toBe('Bonjour !')
    expect(final.output_text).toBe('Bonjour !')
    expect(final.status).toBe('completed')
    expect(final.usage).toMatchObject({ input_tokens: 6, output_tokens: 2, total_tokens: 8 })
    const sent = fake.requestsTo('/chat/completions').at(-1)!.body as { messages: Array<{ role: string; content: unknown }> }
    expect(sent.messages[0]).toMatchObject({ role: 'system', content: 'Be brief' })
  })

  it('a function call comes back as a function_call item, and its output goes back in input', async () => {
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: toolCallChunks('lookup', ['{"q":"x"}']) })
    const tools: OpenAI.Responses.Tool[] = [{ type: 'function', name: 'lookup', description: 'Look up', parameters: { type: 'object', properties: { q: { type: 'string' } } }, strict: false }]
    const first = await openai().responses.create({ model: 'openai/gpt-4o-mini', input: 'find x', tools })
    const call = first.output.find((o) => o.type === 'function_call')
    expect(call).toMatchObject({ type: 'function_call', call_id: 'call_abc', name: 'lookup', arguments: '{"q":"x"}' })
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['x is 42']) })
    const second = await openai().responses.create({
      model: 'openai/gpt-4o-mini',
      tools,
      input: [{ role: 'user', content: 'find x' }, call as OpenAI.Responses.ResponseFunctionToolCall, { type: 'function_call_output', call_id: 'call_abc', output: '42' }]
    })
    expect(second.output_text).toBe('x is 42')
    const sent = fake.requestsTo('/chat/completions').at(-1)!.body as { messages: Array<Record<string, unknown>> }
    expect(sent.messages[1]).toMatchObject({ role: 'assistant', tool_calls: [{ id: 'call_abc' }] })
    expect(sent.messages[2]).toMatchObject({ role: 'tool', tool_call_id: 'call_abc', content: '42' })
  })
})

describe('Anthropic Messages through the gateway', () => {
  it('streams text and the SDK assembles the final message with usage', async () => {
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['Hi', ' from', ' OpenAI'], { usage: { prompt_tokens: 9, completion_tokens: 3, total_tokens: 12 } }) })
    const stream = anthropic().messages.stream({ model: 'openai/gpt-4o-mini', max_tokens: 100, system: 'terse', messages: [{ role: 'user', content: 'hello' }] })
    const text: string[] = []
    stream.on('text', (t) => text.push(t))
    const final = await stream.finalMessage()
    expect(text.join('')).toBe('Hi from OpenAI')
    expect(final.content).toEqual([{ type: 'text', text: 'Hi from OpenAI' }])
    expect(final.stop_reason).toBe('end_turn')
    expect(final.usage).toMatchObject({ input_tokens: 9, output_tokens: 3 })
    const sent = fake.requestsTo('/chat/completions').at(-1)!.body as { messages: unknown[]; max_tokens?: number; max_completion_tokens?: number }
    expect(sent.messages[0]).toMatchObject({ role: 'system', content: 'terse' })
  })

  it('tool_use round trip: input arrives parsed, the tool_result goes back as a tool message', async () => {
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: toolCallChunks('get_weather', ['{"city":"Oslo"}']) })
    const tools: Anthropic.Tool[] = [{ name: 'get_weather', description: 'Weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }]
    const first = await anthropic().messages.create({ model: 'openai/gpt-4o-mini', max_tokens: 100, tools, messages: [{ role: 'user', content: 'weather in Oslo' }] })
    expect(first.stop_reason).toBe('tool_use')
    const use = first.content.find((b) => b.type === 'tool_use')
    expect(use).toMatchObject({ type: 'tool_use', id: 'call_abc', name: 'get_weather', input: { city: 'Oslo' } })
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['Cold in Oslo']) })
    const second = await anthropic().messages.create({
      model: 'openai/gpt-4o-mini',
      max_tokens: 100,
      tools,
      messages: [
        { role: 'user', content: 'weather in Oslo' },
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_abc', content: '-3 C' }] }
      ]
    })
    expect(second.content).toEqual([{ type: 'text', text: 'Cold in Oslo' }])
    const sent = fake.requestsTo('/chat/completions').at(-1)!.body as { messages: Array<Record<string, unknown>> }
    expect(sent.messages[1]).toMatchObject({ role: 'assistant', tool_calls: [{ id: 'call_abc', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] })
    expect(sent.messages[2]).toMatchObject({ role: 'tool', tool_call_id: 'call_abc', content: '-3 C' })
  })

  it('thinking streams as a thinking block before the text', async () => {
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['42'], { reasoning: ['Let me ', 'think.'] }) })
    const final = await anthropic()
      .messages.stream({ model: 'openai/gpt-4o-mini', max_tokens: 2000, thinking: { type: 'enabled', budget_tokens: 1024 }, messages: [{ role: 'user', content: 'answer?' }] })
      .finalMessage()
    expect(final.content[0]).toMatchObject({ type: 'thinking', thinking: 'Let me think.' })
    expect(final.content[1]).toEqual({ type: 'text', text: '42' })
  })

  it('count_tokens answers input_tokens for the request, as the SDK reads it', async () => {
    const small = await anthropic().messages.countTokens({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })
    const large = await anthropic().messages.countTokens({ model: 'openai/gpt-4o-mini', system: 'be brief', messages: [{ role: 'user', content: 'hello there, '.repeat(100) }] })
    expect(small.input_tokens).toBeGreaterThan(0)
    expect(large.input_tokens).toBeGreaterThan(small.input_tokens * 10)
  })

  it('a server tool the upstream lacks is left out with a warning header, and the call goes on', async () => {
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['searched']) })
    const { data, response } = await anthropic()
      .messages.create({ model: 'openai/gpt-4o-mini', max_tokens: 16, tools: [{ type: 'web_search_20250305', name: 'web_search' }], messages: [{ role: 'user', content: 'news?' }] })
      .withResponse()
    expect(data.content).toEqual([{ type: 'text', text: 'searched' }])
    expect(response.headers.get('x-switchboard-warning')).toMatch(/web_search_20250305.*left out/)
    expect((fake.requestsTo('/chat/completions').at(-1)!.body as { tools?: unknown }).tools).toBeUndefined()
  })

  it('the server tool calls and results of an earlier turn are left out for an upstream without server tools, with a warning, not a 400', async () => {
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['noted']) })
    const { data, response } = await anthropic()
      .messages.create({
        model: 'openai/gpt-4o-mini',
        max_tokens: 16,
        messages: [
          { role: 'user', content: 'news?' },
          {
            role: 'assistant',
            content: [
              { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'news' } },
              { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [{ type: 'web_search_result', url: 'https://example.org', title: 'Ex', encrypted_content: 'abc' }] },
              { type: 'text', text: 'Nothing new.' }
            ]
          },
          { role: 'user', content: 'thanks' }
        ]
      })
      .withResponse()
    expect(data.content).toEqual([{ type: 'text', text: 'noted' }])
    expect(response.headers.get('x-switchboard-warning')).toMatch(/server tool calls and results of earlier turns were left out/)
    const sent = fake.requestsTo('/chat/completions').at(-1)!.body as { messages: Array<Record<string, unknown>> }
    expect(sent.messages.map((m) => [m['role'], m['content']])).toEqual([
      ['user', 'news?'],
      ['assistant', 'Nothing new.'],
      ['user', 'thanks']
    ])
  })

  it('errors come in Anthropic’s shape with the right status', async () => {
    const error = await anthropic()
      .messages.create({ model: 'no-provider-here', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Anthropic.NotFoundError)
    expect((error as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ type: 'error', error: { type: 'not_found_error' } })
  })
})
