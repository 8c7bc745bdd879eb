/* eslint-disable @typescript-eslint/no-explicit-any -- wire bodies are inspected loosely in tests */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AppErrorException } from '../../../src/shared/errors/app-error'
import type { StreamEvent } from '../../../src/shared/stream/events'
import { createAzureRuntime } from '../../../src/core/runtime/providers/azure/azure-runtime'
import { createProviderRuntime, hasNativeAdapter } from '../../../src/core/runtime/registry'
import type { ProviderCredentials } from '../../../src/core/runtime/types'
import type { ProviderRuntime } from '../../../src/core/runtime/types'
import { startFakeHttpServer, type FakeServer } from '../../fixtures/fake-anthropic/fake-http-server'
import { SSE_HEADERS, openAIChatReply, sseData } from '../../fixtures/fake-cloudflare/sse'

const KEY = 'azure-secret-key-0123456789'
let server: FakeServer
beforeAll(async () => {
  server = await startFakeHttpServer()
})
afterAll(() => server.close())

const collect = async (it: AsyncIterable<StreamEvent>) => {
  const out: StreamEvent[] = []
  for await (const e of it) out.push(e)
  return out
}
const text = (events: StreamEvent[]) => events.filter((e) => e.type === 'text').map((e) => e.data).join('')
const errorOf = (events: StreamEvent[]) => {
  const e = events.find((x) => x.type === 'error')
  return e?.type === 'error' ? e.data : undefined
}
const json = (status: number, body: unknown) => ({ status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
const say = (runtime: ProviderRuntime, model: string, extra: Record<string, unknown> = {}) =>
  collect(runtime.chat!({ model, messages: [{ role: 'system', content: 'sys' }, { role: 'user', content: 'hi' }], ...extra }, { maxRetries: 0 }))

const throwsType = (fn: () => unknown, type: string) => {
  let caught: unknown
  try {
    fn()
  } catch (error) {
    caught = error
  }
  expect(caught).toBeInstanceOf(AppErrorException)
  expect((caught as AppErrorException).error.errorType).toBe(type)
}

describe('azure openai', () => {
  const azure = () => createAzureRuntime({ apiKey: KEY, baseURL: server.url }, { providerId: 'azure' })

  it('needs both key and base URL', () => {
    throwsType(() => createAzureRuntime({ apiKey: KEY }, { providerId: 'azure' }), 'InvalidProviderAPIKey')
    throwsType(() => createAzureRuntime({ baseURL: server.url }, { providerId: 'azure' }), 'InvalidProviderAPIKey')
  })

  it('streams from the catalogue deployment with the api-key header', async () => {
    server.handle(() => ({ headers: SSE_HEADERS, chunks: openAIChatReply(['Hello', ' Azure']) }))
    const events = await say(azure(), 'gpt-4', { temperature: 0.3 })
    expect(text(events)).toBe('Hello Azure')
    expect(events.find((e) => e.type === 'stop')?.data).toBe('stop')
    expect(events.find((e) => e.type === 'usage')?.data).toMatchObject({ totalInputTokens: 4, totalOutputTokens: 2 })
    const req = server.requests.at(-1)!
    // gpt-4's catalogue config deploys it as gpt-4-turbo.
    expect(req.path).toBe('/openai/deployments/gpt-4-turbo/chat/completions?api-version=2025-04-01-preview')
    expect(req.headers['api-key']).toBe(KEY)
    expect((req.json as any).temperature).toBe(0.3)
  })

  it('applies reasoning-model rules and turns minimal effort into low', async () => {
    server.handle(() => ({ headers: SSE_HEADERS, chunks: openAIChatReply(['ok']) }))
    await say(azure(), 'o3-mini', { temperature: 1, top_p: 0.5, max_tokens: 100, reasoning_effort: 'minimal' })
    const body = server.requests.at(-1)!.json as any
    expect(body.messages[0].role).toBe('developer')
    expect(body.temperature).toBeUndefined()
    expect(body.top_p).toBeUndefined()
    expect(body.max_completion_tokens).toBe(100)
    expect(body.reasoning_effort).toBe('low')
  })

  it('names the deployment when Azure says DeploymentNotFound', async () => {
    server.handle(() => json(404, { error: { code: 'DeploymentNotFound', message: 'The API deployment for this resource does not exist.' } }))
    const error = errorOf(await say(azure(), 'my-missing-deploy'))
    expect(error?.message).toContain('my-missing-deploy')
    expect((error?.detail as any).deployId).toBe('my-missing-deploy')
  })

  it('reports truncation and malformed chunks', async () => {
    server.handle(() => ({ headers: SSE_HEADERS, chunks: openAIChatReply(['a', 'b']).slice(0, 2), cut: true }))
    let events = await say(azure(), 'gpt-4o')
    expect(text(events)).toBe('a')
    expect(events.find((e) => e.type === 'stop')?.data).toBe('interrupted')
    server.handle(() => ({ headers: SSE_HEADERS, chunks: [openAIChatReply(['a'])[1]!, 'data: {"choices": [\n\n'] }))
    events = await say(azure(), 'gpt-4o')
    expect(errorOf(events)?.errorType).toBe('StreamChunkError')
  })

  it('keeps the key out of errors', async () => {
    server.handle(() => json(401, { error: { code: '401', message: `Access denied due to invalid subscription key ${KEY}` } }))
    const events = await say(azure(), 'gpt-4o')
    expect(errorOf(events)?.errorType).toBe('InvalidProviderAPIKey')
    expect(JSON.stringify(events)).not.toContain(KEY)
  })
})

// Azure AI and Hugging Face are OpenAI-compatible configs with hooks (issue 19), built by the registry.
const createAzureAIRuntime = (credentials: ProviderCredentials, context: { providerId: string }) => createProviderRuntime(context.providerId, credentials)
const createHuggingFaceRuntime = createAzureAIRuntime

describe('azure ai', () => {
  it('is an OpenAI-compatible config, not a native adapter', () => {
    expect(hasNativeAdapter('azureai')).toBe(false)
    expect(hasNativeAdapter('huggingface')).toBe(false)
  })

  it('POSTs /chat/completions with the model in the body and the key in api-key', async () => {
    server.handle(() => ({ headers: SSE_HEADERS, chunks: openAIChatReply(['<think>hmm</think>', 'Answer']) }))
    const runtime = createAzureAIRuntime({ apiKey: KEY, baseURL: `${server.url}/models` }, { providerId: 'azureai' })
    const events = await say(runtime, 'DeepSeek-R1')
    expect(events.filter((e) => e.type === 'reasoning').map((e) => e.data).join('')).toBe('hmm')
    expect(text(events)).toBe('Answer')
    const req = server.requests.at(-1)!
    expect(req.path).toBe('/models/chat/completions?api-version=2024-05-01-preview')
    expect(req.headers['api-key']).toBe(KEY)
    expect((req.json as any).model).toBe('DeepSeek-R1')
  })

  it('needs both key and base URL', () => {
    throwsType(() => createAzureAIRuntime({ apiKey: KEY }, { providerId: 'azureai' }), 'InvalidProviderAPIKey')
  })
})

describe('hugging face', () => {
  const hf = () => createHuggingFaceRuntime({ apiKey: KEY, baseURL: `${server.url}/v1` }, { providerId: 'huggingface' })

  it('drops top_p outside the range and clamps the rest into 0.01..0.99', async () => {
    server.handle(() => ({ headers: SSE_HEADERS, chunks: openAIChatReply(['x']) }))
    await say(hf(), 'mistralai/Mistral-7B-Instruct-v0.3', { top_p: 1 })
    expect((server.requests.at(-1)!.json as any).top_p).toBe(0.99)
    await say(hf(), 'mistralai/Mistral-7B-Instruct-v0.3', { top_p: 0 })
    expect(server.requests.at(-1)!.json as any).not.toHaveProperty('top_p')
    await say(hf(), 'mistralai/Mistral-7B-Instruct-v0.3', { top_p: 1.5 })
    expect(server.requests.at(-1)!.json as any).not.toHaveProperty('top_p')
    await say(hf(), 'mistralai/Mistral-7B-Instruct-v0.3', { top_p: 0.001 })
    expect((server.requests.at(-1)!.json as any).top_p).toBe(0.01)
    await say(hf(), 'mistralai/Mistral-7B-Instruct-v0.3', { top_p: 0.5 })
    expect((server.requests.at(-1)!.json as any).top_p).toBe(0.5)
    expect(server.requests.at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`)
  })

  it.each([
    ['Model requires a Pro subscription; check out hf.co/pricing', 'PermissionDenied'],
    ['Authorization header is correct, but the token seems invalid', 'InvalidProviderAPIKey']
  ])('maps the stream error "%s" to %s', async (message, type) => {
    server.handle(() => ({ headers: SSE_HEADERS, chunks: [sseData({ error: message })] }))
    const events = await say(hf(), 'meta-llama/Llama-3.1-70B-Instruct')
    expect(errorOf(events)?.errorType).toBe(type)
  })

  it('lists models from the router', async () => {
    server.handle(() => json(200, { object: 'list', data: [{ id: 'Qwen/Qwen2.5-72B-Instruct', object: 'model', created: 1, owned_by: 'hf' }] }))
    const { models } = await hf().models!()
    expect(models.map((m) => m.id)).toEqual(['Qwen/Qwen2.5-72B-Instruct'])
    expect(models[0]!.contextWindowTokens).toBe(32768)
  })
})
