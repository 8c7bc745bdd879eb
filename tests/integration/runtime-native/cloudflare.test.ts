import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AppErrorException } from '../../../src/shared/errors/app-error'
import type { StreamEvent } from '../../../src/shared/stream/events'
import { cloudflareRunBase, createCloudflareRuntime } from '../../../src/core/runtime/providers/cloudflare/cloudflare-runtime'
import { startFakeHttpServer, type FakeServer } from '../../fixtures/fake-anthropic/fake-http-server'
import { SSE_DONE, SSE_HEADERS, sseData, workersAIReply } from '../../fixtures/fake-cloudflare/sse'

const KEY = 'cf-secret-token-abcdef'
let server: FakeServer
let base: string
beforeAll(async () => {
  server = await startFakeHttpServer()
  base = `${server.url}/client/v4/accounts/acc-1/ai/run`
})
afterAll(() => server.close())

const collect = async (it: AsyncIterable<StreamEvent>) => {
  const out: StreamEvent[] = []
  for await (const e of it) out.push(e)
  return out
}
const runtime = () => createCloudflareRuntime({ apiKey: KEY, baseURL: base }, { providerId: 'cloudflare' })
const chat = (extra: Record<string, unknown> = {}) =>
  collect(runtime().chat!({ model: '@cf/deepseek-ai/deepseek-r1-distill-qwen-32b', messages: [{ role: 'user', content: 'hi' }], ...extra }, { maxRetries: 0 }))
const errorOf = (events: StreamEvent[]) => {
  const e = events.find((x) => x.type === 'error')
  return e?.type === 'error' ? e.data : undefined
}

describe('cloudflare workers ai', () => {
  it('needs a base URL or an account id, and a key', () => {
    for (const credentials of [{ apiKey: KEY }, { accountId: 'a' }]) {
      let caught: unknown
      try {
        createCloudflareRuntime(credentials, { providerId: 'cloudflare' })
      } catch (error) {
        caught = error
      }
      expect(caught).toBeInstanceOf(AppErrorException)
    }
    expect(cloudflareRunBase(undefined, 'acc')).toBe('https://api.cloudflare.com/client/v4/accounts/acc/ai/run')
  })

  it('POSTs to the model path with a bearer key and tools; <think> becomes reasoning', async () => {
    server.handle(() => ({ headers: SSE_HEADERS, chunks: workersAIReply(['<thi', 'nk>plan</think>', 'Hi', '!']) }))
    const tools = [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }]
    const events = await chat({ tools, temperature: 0.2, max_tokens: 50 })
    expect(events.filter((e) => e.type === 'reasoning').map((e) => e.data).join('')).toBe('plan')
    expect(events.filter((e) => e.type === 'text').map((e) => e.data).join('')).toBe('Hi!')
    expect(events.find((e) => e.type === 'stop')?.data).toBe('stop')
    expect(events.find((e) => e.type === 'usage')?.data).toMatchObject({ totalInputTokens: 5, totalOutputTokens: 4 })
    const req = server.requests.at(-1)!
    expect(req.path).toBe('/client/v4/accounts/acc-1/ai/run/@cf/deepseek-ai/deepseek-r1-distill-qwen-32b')
    expect(req.headers.authorization).toBe(`Bearer ${KEY}`)
    expect(req.json).toMatchObject({ stream: true, tools, temperature: 0.2, max_tokens: 50 })
  })

  it('streams tool calls', async () => {
    server.handle(() => ({ headers: SSE_HEADERS, chunks: [sseData({ response: '', tool_calls: [{ name: 'f', arguments: { a: 1 } }] }), SSE_DONE] }))
    const events = await chat()
    const call = events.flatMap((e) => (e.type === 'tool_calls' ? e.data : []))[0]!
    expect(call.function).toEqual({ name: 'f', arguments: '{"a":1}' })
    expect(events.find((e) => e.type === 'stop')?.data).toBe('tool_calls')
  })

  it('reports truncation, malformed chunks and API errors', async () => {
    server.handle(() => ({ headers: SSE_HEADERS, chunks: workersAIReply(['a', 'b']).slice(0, 1), cut: true }))
    let events = await chat()
    expect(events.find((e) => e.type === 'stop')?.data).toBe('interrupted')
    server.handle(() => ({ headers: SSE_HEADERS, chunks: [sseData({ response: 'a' }), 'data: {"response": \n\n'] }))
    events = await chat()
    expect(errorOf(events)?.errorType).toBe('StreamChunkError')
    server.handle(() => ({ status: 401, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ success: false, errors: [{ code: 10000, message: `Authentication error ${KEY}` }] }) }))
    events = await chat()
    expect(errorOf(events)?.errorType).toBe('InvalidProviderAPIKey')
    expect(JSON.stringify(events)).not.toContain(KEY)
  })

  it('lists text-generation models from the account model search', async () => {
    server.handle(() => ({
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        success: true,
        result: [
          { name: '@cf/qwen/qwq-32b', description: 'QwQ', task: { name: 'Text Generation' }, properties: [{ property_id: 'context_window', value: '24000' }] },
          { name: '@cf/baai/bge-base-en-v1.5', task: { name: 'Text Embeddings' } }
        ]
      })
    }))
    const { models } = await runtime().models!()
    expect(models.map((m) => m.id)).toEqual(['@cf/qwen/qwq-32b'])
    expect(models[0]!.contextWindowTokens).toBe(24000)
    expect(server.requests.at(-1)!.path).toBe('/client/v4/accounts/acc-1/ai/models/search')
  })
})
