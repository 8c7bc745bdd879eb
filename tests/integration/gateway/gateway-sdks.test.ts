import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import OpenAI from 'openai'
import Anthropic from '@anthropic-ai/sdk'
import type { Core } from '../../../src/core'
import { MemoryBackend } from '../../../src/core/secrets'
import type { Result } from '../../../src/shared/errors/app-error'
import { createAppGatewayBackend } from '../../../src/core/gateway/app-backend'
import { startGatewayServer, type GatewayServer } from '../../../src/core/gateway/gateway-server'
import { newApiKey, type StoredApiKey } from '../../../src/core/gateway/access'
import { chatChunks, errorBody, startFakeOpenAI, type FakeOpenAI } from '../../fixtures/fake-openai'
import { loadProviderModels } from '../../../src/shared/catalogue/loader'
import { startTestCore } from '../test-core'

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
  const app = await startTestCore('sb-gateway-', { secrets: { backend: new MemoryBackend() } })
  core = app.core
  const client = app.client
  ok(await client.call('providers.update', { providerId: 'openai', baseURL: fake.url }))
  ok(await client.call('providers.setKey', { providerId: 'openai', apiKey: 'sk-upstream-SECRET-0123456789' }))
  ok(await client.call('providers.setModelEnabled', { providerId: 'openai', modelId: 'gpt-4o-mini', enabled: true }))
  // Upstreams without token biases or log-probabilities: they refuse those before any request, so their addresses go nowhere.
  ok(await client.call('providers.update', { providerId: 'anthropic', baseURL: fake.url }))
  ok(await client.call('providers.setKey', { providerId: 'anthropic', apiKey: 'sk-ant-upstream-0123456789' }))
  ok(await client.call('providers.update', { providerId: 'ollama', baseURL: fake.url }))
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

  it('logit_bias reaches an OpenAI-API upstream as sent; off values of logprobs and logit_bias send nothing', async () => {
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['ok']) })
    await openai().chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], logit_bias: { '50256': -100, '1234': 5 } })
    expect((fake.requestsTo('/chat/completions').at(-1)!.body as { logit_bias?: unknown }).logit_bias).toEqual({ '50256': -100, '1234': 5 })
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['ok']) })
    const reply = await openai().chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], logprobs: false, logit_bias: {} })
    expect(reply.choices[0]!.message.content).toBe('ok')
    expect(reply.choices[0]!.logprobs).toBeNull()
    const sent = fake.requestsTo('/chat/completions').at(-1)!.body as Record<string, unknown>
    expect(sent).not.toHaveProperty('logit_bias')
    expect(sent).not.toHaveProperty('logprobs')
  })

  it('a logit_bias that is not token id → −100..100 is a 400 naming it', async () => {
    for (const bias of [{ abc: 1 }, { '12': 101 }, { '12': -100.5 }] as Array<Record<string, number>>) {
      const error = await openai()
        .chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], logit_bias: bias })
        .then(() => undefined, (e: unknown) => e)
      expect(error, JSON.stringify(bias)).toBeInstanceOf(OpenAI.BadRequestError)
      expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('logit_bias')
    }
  })

  const tokenLogprobs = (pieces: string[]) =>
    pieces.map((p, i) => ({ token: p, logprob: -0.25 * (i + 1), bytes: [...Buffer.from(p)], top_logprobs: [{ token: p, logprob: -0.25 * (i + 1), bytes: [...Buffer.from(p)] }, { token: 'x', logprob: -3, bytes: [120] }] }))
  /** chatChunks with each text chunk's `logprobs.content`, as OpenAI sends them when asked. */
  const chunksWithLogprobs = (pieces: string[]) => {
    const lp = tokenLogprobs(pieces)
    let n = 0
    return (chatChunks(pieces, { usage: { prompt_tokens: 2, completion_tokens: pieces.length, total_tokens: 2 + pieces.length } }) as Array<{ choices: Array<{ delta: { content?: string }; logprobs?: unknown }> }>).map((chunk) => {
      const choice = chunk.choices[0]
      if (choice?.delta.content) return { ...chunk, choices: [{ ...choice, logprobs: { content: [lp[n++]], refusal: null } }] }
      return chunk
    })
  }

  it('logprobs and top_logprobs reach the upstream, and its per-token log-probabilities come back streamed', async () => {
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chunksWithLogprobs(['Hel', 'lo']) })
    const stream = await openai().chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], logprobs: true, top_logprobs: 2, stream: true })
    let text = ''
    const content: OpenAI.ChatCompletionTokenLogprob[] = []
    for await (const chunk of stream) {
      const choice = chunk.choices[0]
      text += choice?.delta.content ?? ''
      if (choice?.delta.content) expect(choice.logprobs?.content?.map((c) => c.token).join('')).toBe(choice.delta.content)
      content.push(...(choice?.logprobs?.content ?? []))
    }
    expect(text).toBe('Hello')
    expect(content).toEqual(tokenLogprobs(['Hel', 'lo']))
    expect(fake.requestsTo('/chat/completions').at(-1)!.body).toMatchObject({ logprobs: true, top_logprobs: 2 })
  })

  it('logprobs come back in a non-streamed answer as choices[0].logprobs.content', async () => {
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chunksWithLogprobs(['Four', '!']) })
    const reply = await openai().chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: '2+2?' }], logprobs: true, top_logprobs: 2 })
    expect(reply.choices[0]!.message.content).toBe('Four!')
    expect(reply.choices[0]!.logprobs?.content).toEqual(tokenLogprobs(['Four', '!']))
  })

  it('an upstream that cannot honour logprobs or logit_bias (Anthropic, Ollama) refuses it by name, before any request to it', async () => {
    const cases = [
      ['anthropic/claude-3-5-haiku-latest', { logprobs: true }, 'logprobs'],
      ['anthropic/claude-3-5-haiku-latest', { logit_bias: { '12': 1 } }, 'logit_bias'],
      ['ollama/llama3.2', { logprobs: true, top_logprobs: 3 }, 'logprobs'],
      ['ollama/llama3.2', { logit_bias: { '12': -100 } }, 'logit_bias']
    ] as const
    for (const [model, extra, option] of cases) {
      const error = await openai()
        .chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }], ...extra })
        .then(() => undefined, (e: unknown) => e)
      expect(error, `${model} ${option}`).toBeInstanceOf(OpenAI.BadRequestError)
      const message = (error as Error).message
      expect(message).toContain(model.split('/')[0]!)
      expect(message).toContain(option)
    }
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
  it('an empty input is a 400 that says why, as OpenAI refuses it (token ids: gateway-embedding-tokens.test.ts)', async () => {
    for (const [input, message] of [
      ['', /must not be empty/],
      [['a', ''], /must not be empty/]
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

describe('OpenAI built-in tools through the gateway', () => {
  // gpt-5-codex is served by the Responses API only (the OpenAI runtime sends it there), whose
  // built-in tools the upstream has; gpt-4o-mini goes by Chat Completions, which has none.
  const WEB_SEARCH = { type: 'web_search', search_context_size: 'low' }
  const LOOKUP = { type: 'function', name: 'lookup', description: 'Look up', parameters: { type: 'object', properties: { q: { type: 'string' } } }, strict: false }
  const SEARCH_ITEM = { id: 'ws_1', type: 'web_search_call', status: 'completed', action: { type: 'search', query: 'paris weather' } }
  const ANNOTATION = { type: 'url_citation', start_index: 0, end_index: 4, url: 'https://example.org/news', title: 'News' }
  /** What OpenAI's Responses API streams for a web search and its answer. */
  const searchReply = () => ({
    kind: 'sse' as const,
    eventNames: true,
    done: false,
    chunks: [
      { type: 'response.created', sequence_number: 0, response: { id: 'resp_up', status: 'in_progress' } },
      { type: 'response.output_item.added', sequence_number: 1, output_index: 0, item: { id: 'ws_1', type: 'web_search_call', status: 'in_progress' } },
      { type: 'response.web_search_call.in_progress', sequence_number: 2, output_index: 0, item_id: 'ws_1' },
      { type: 'response.web_search_call.searching', sequence_number: 3, output_index: 0, item_id: 'ws_1' },
      { type: 'response.web_search_call.completed', sequence_number: 4, output_index: 0, item_id: 'ws_1' },
      { type: 'response.output_item.done', sequence_number: 5, output_index: 0, item: SEARCH_ITEM },
      { type: 'response.output_item.added', sequence_number: 6, output_index: 1, item: { id: 'msg_up', type: 'message', status: 'in_progress', role: 'assistant', content: [] } },
      { type: 'response.content_part.added', sequence_number: 7, item_id: 'msg_up', output_index: 1, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } },
      { type: 'response.output_text.delta', sequence_number: 8, item_id: 'msg_up', output_index: 1, content_index: 0, delta: 'Rain' },
      { type: 'response.output_text.annotation.added', sequence_number: 9, item_id: 'msg_up', output_index: 1, content_index: 0, annotation_index: 0, annotation: ANNOTATION },
      { type: 'response.output_text.delta', sequence_number: 10, item_id: 'msg_up', output_index: 1, content_index: 0, delta: ' today.' },
      { type: 'response.output_text.done', sequence_number: 11, item_id: 'msg_up', output_index: 1, content_index: 0, text: 'Rain today.' },
      { type: 'response.output_item.done', sequence_number: 12, output_index: 1, item: { id: 'msg_up', type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Rain today.', annotations: [ANNOTATION] }] } },
      { type: 'response.completed', sequence_number: 13, response: { id: 'resp_up', status: 'completed', usage: { input_tokens: 20, output_tokens: 5, total_tokens: 25 } } }
    ]
  })
  const ask = { model: 'openai/gpt-5-codex', input: 'Weather in Paris?', tools: [LOOKUP, WEB_SEARCH] as OpenAI.Responses.Tool[] }
  const lastResponses = () => fake.requestsTo('/responses').at(-1)!.body as { tools: unknown[]; input: Array<Record<string, unknown>> }

  it('streamed: a built-in tool reaches a Responses-API upstream as sent, and its output item and the citations come back', async () => {
    fake.enqueue('/responses', searchReply())
    const { data: stream, response } = await openai().responses.create({ ...ask, stream: true }).withResponse()
    const types: string[] = []
    let final: OpenAI.Responses.Response | undefined
    for await (const event of stream) {
      types.push(event.type)
      if (event.type === 'response.completed') final = event.response
    }
    expect(response.headers.get('x-switchboard-warning')).toBeNull()
    expect(lastResponses().tools).toEqual([expect.objectContaining({ type: 'function', name: 'lookup' }), WEB_SEARCH])
    expect(types.filter((t) => t.startsWith('response.web_search_call.'))).toEqual(['response.web_search_call.in_progress', 'response.web_search_call.searching', 'response.web_search_call.completed'])
    expect(final!.output[0]).toEqual(SEARCH_ITEM)
    expect(final!.output[1]).toMatchObject({ type: 'message', content: [{ type: 'output_text', text: 'Rain today.', annotations: [ANNOTATION] }] })
    expect(final!.output).toHaveLength(2)
  })

  it('not streamed: the same output, in order', async () => {
    fake.enqueue('/responses', searchReply())
    const reply = await openai().responses.create(ask)
    expect(reply.output[0]).toEqual(SEARCH_ITEM)
    expect(reply.output[1]).toMatchObject({ type: 'message', content: [{ type: 'output_text', text: 'Rain today.', annotations: [ANNOTATION] }] })
    expect(reply.output_text).toBe('Rain today.')
  })

  it('the built-in tool’s item sent back in the next input reaches the upstream as it is, in its place', async () => {
    fake.enqueue('/responses', searchReply())
    const first = await openai().responses.create(ask)
    fake.enqueue('/responses', { kind: 'sse', eventNames: true, done: false, chunks: [{ type: 'response.output_text.delta', delta: 'Take an umbrella.' }, { type: 'response.completed', response: { id: 'resp_2', status: 'completed' } }] })
    const second = await openai().responses.create({ ...ask, input: [{ role: 'user', content: 'Weather in Paris?' }, ...(first.output as OpenAI.Responses.ResponseInputItem[]), { role: 'user', content: 'So?' }] })
    expect(second.output_text).toBe('Take an umbrella.')
    const input = lastResponses().input
    expect(input[0]).toMatchObject({ role: 'user' })
    expect(input[1]).toEqual(SEARCH_ITEM)
    expect(input[2]).toMatchObject({ role: 'assistant' })
    expect(input[3]).toMatchObject({ role: 'user', content: 'So?' })
  })

  it('an upstream that fails before any output is still an HTTP error, not a started stream', async () => {
    fake.enqueue('/responses', {
      kind: 'sse',
      eventNames: true,
      done: false,
      chunks: [
        { type: 'response.created', sequence_number: 0, response: { id: 'resp_up', status: 'in_progress' } },
        { type: 'response.failed', sequence_number: 1, response: { id: 'resp_up', status: 'failed', error: { code: 'server_error', message: 'search backend down' } } }
      ]
    })
    const error = await openai()
      .responses.create({ ...ask, stream: true })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(OpenAI.APIError)
    expect((error as Error).message).toMatch(/search backend down/)
  })

  it('a model served by Chat Completions: the built-in tool and the items of earlier turns are left out with a warning, not a 400', async () => {
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['No search here.']) })
    const { data, response } = await openai()
      .responses.create({ model: 'openai/gpt-4o-mini', tools: [LOOKUP, WEB_SEARCH] as OpenAI.Responses.Tool[], input: [{ role: 'user', content: 'Weather?' }, SEARCH_ITEM as OpenAI.Responses.ResponseInputItem, { role: 'user', content: 'So?' }] })
      .withResponse()
    expect(data.output_text).toBe('No search here.')
    const warning = response.headers.get('x-switchboard-warning') ?? ''
    expect(warning).toMatch(/"web_search".*left out/)
    expect(warning).toMatch(/built-in tool calls of earlier turns were left out/)
    const sent = fake.requestsTo('/chat/completions').at(-1)!.body as { tools: Array<{ function: { name: string } }>; messages: Array<{ role: string }> }
    expect(sent.tools.map((t) => t.function.name)).toEqual(['lookup'])
    expect(sent.messages.map((m) => m.role)).toEqual(['user', 'user'])
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
