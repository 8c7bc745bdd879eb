/* eslint-disable @typescript-eslint/no-explicit-any -- wire bodies are inspected loosely in tests */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AppErrorException } from '../../../src/shared/errors/app-error'
import type { StreamEvent } from '../../../src/shared/stream/events'
import { createAnthropicRuntime } from '../../../src/core/runtime/providers/anthropic/anthropic-runtime'
import type { ChatRequest } from '../../../src/core/runtime/types'
import { startFakeHttpServer, type FakeServer } from '../../fixtures/fake-anthropic/fake-http-server'
import { SSE_HEADERS, anthropicEvent, anthropicTextReply, anthropicThinkingToolReply } from '../../fixtures/fake-anthropic/anthropic-sse'

const KEY = 'sk-ant-secret-key-123456'
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
const runtime = () => createAnthropicRuntime({ apiKey: KEY, baseURL: server.url }, { providerId: 'anthropic' })
const chat = (request: Partial<ChatRequest> = {}) =>
  collect(runtime().chat!({ model: 'claude-3-5-haiku-20241022', messages: [{ role: 'user', content: 'hi' }], ...request }, { maxRetries: 0 }))
const noSecret = (events: unknown) => expect(JSON.stringify(events)).not.toContain(KEY)

describe('anthropic runtime against a fake Messages API', () => {
  it('streams text, stop and usage through the real SDK, with key and version headers', async () => {
    server.handle(() => ({ headers: SSE_HEADERS, chunks: anthropicTextReply(['Hel', 'lo']) }))
    const events = await chat({ temperature: 1, user: 'u-1' })
    expect(events.filter((e) => e.type === 'text').map((e) => e.data).join('')).toBe('Hello')
    expect(events.find((e) => e.type === 'stop')).toEqual({ type: 'stop', data: 'end_turn' })
    expect(events.find((e) => e.type === 'usage')?.data).toMatchObject({ totalInputTokens: 12, totalOutputTokens: 2 })
    const req = server.requests.at(-1)!
    expect(req.path).toBe('/v1/messages')
    expect(req.headers['x-api-key']).toBe(KEY)
    expect(req.headers['anthropic-version']).toBeTruthy()
    const body = req.json as Record<string, any>
    expect(body.stream).toBe(true)
    expect(body.temperature).toBe(0.5)
    expect(body.max_tokens).toBe(8192)
    expect(body.metadata).toEqual({ user_id: 'u-1' })
    expect(body.messages[0].content[0].cache_control).toEqual({ type: 'ephemeral' })
  })

  it('streams thinking with its signature and a tool call assembled from JSON fragments', async () => {
    server.handle(() => ({ headers: SSE_HEADERS, chunks: anthropicThinkingToolReply() }))
    const events = await chat({
      model: 'claude-sonnet-4-5-20250929',
      thinking: { type: 'enabled', budget_tokens: 50000 },
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }]
    })
    const reasoning = events.filter((e) => e.type === 'reasoning')
    expect(reasoning.map((e) => e.data).join('')).toBe('Need the weather.')
    expect(reasoning.some((e) => e.type === 'reasoning' && e.signature === 'sig-abc')).toBe(true)
    const args = events.flatMap((e) => (e.type === 'tool_calls' ? e.data : [])).map((c) => c.function.arguments).join('')
    expect(JSON.parse(args)).toEqual({ city: 'Paris' })
    expect(events.find((e) => e.type === 'usage')?.data).toMatchObject({ inputCachedTokens: 100, inputWriteCacheTokens: 20, totalInputTokens: 160, totalOutputTokens: 30 })
    const body = server.requests.at(-1)!.json as Record<string, any>
    expect(body.max_tokens).toBe(32000)
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 31999 })
    expect(body.temperature).toBeUndefined()
  })

  it('reports a truncated stream (socket cut before message_stop) as interrupted', async () => {
    server.handle(() => ({ headers: SSE_HEADERS, chunks: anthropicTextReply(['partial', ' answer']).slice(0, 4), cut: true }))
    const events = await chat()
    expect(events.filter((e) => e.type === 'text').map((e) => e.data).join('')).toBe('partial')
    expect(events.find((e) => e.type === 'stop')?.data).toBe('interrupted')
    expect(events.some((e) => e.type === 'error')).toBe(true)
  })

  it('reports a clean close without the end marker as interrupted too', async () => {
    server.handle(() => ({ headers: SSE_HEADERS, chunks: anthropicTextReply(['a', 'b']).slice(0, 4) }))
    const events = await chat()
    expect(events.find((e) => e.type === 'stop')?.data).toBe('interrupted')
  })

  it('turns an error event mid-stream into an error after the text already sent', async () => {
    server.handle(() => ({
      headers: SSE_HEADERS,
      chunks: [...anthropicTextReply(['so far']).slice(0, 4), anthropicEvent({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })]
    }))
    const events = await chat()
    expect(events.filter((e) => e.type === 'text').map((e) => e.data)).toEqual(['so far'])
    const error = events.find((e) => e.type === 'error')
    expect(error?.type === 'error' && error.data.message).toContain('Overloaded')
    expect(events.find((e) => e.type === 'stop')?.data).toBe('error')
  })

  it('turns a malformed chunk into StreamChunkError', async () => {
    server.handle(() => ({ headers: SSE_HEADERS, chunks: [...anthropicTextReply(['ok']).slice(0, 3), 'event: content_block_delta\ndata: {"type":"content_block_delta",\n\n'] }))
    const events = await chat()
    const error = events.find((e) => e.type === 'error')
    expect(error?.type === 'error' && error.data.errorType).toBe('StreamChunkError')
  })

  it('maps 403 to LocationNotSupportError and 401 to InvalidProviderAPIKey without leaking the key', async () => {
    server.handle(() => ({ status: 403, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ type: 'error', error: { type: 'permission_error', message: 'Request not allowed' } }) }))
    let events = await chat()
    let error = events.find((e) => e.type === 'error')
    expect(error?.type === 'error' && error.data.errorType).toBe('LocationNotSupportError')
    server.handle(() => ({ status: 401, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: `invalid x-api-key ${KEY}` } }) }))
    events = await chat()
    error = events.find((e) => e.type === 'error')
    expect(error?.type === 'error' && error.data.errorType).toBe('InvalidProviderAPIKey')
    noSecret(events)
  })

  it('lists models from GET /v1/models with key and version headers', async () => {
    server.handle((req) =>
      req.path.startsWith('/v1/models')
        ? {
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({
              data: [{ type: 'model', id: 'claude-3-5-haiku-20241022', display_name: 'Claude Haiku 3.5', created_at: '2024-10-22T00:00:00Z' }],
              has_more: false,
              first_id: 'claude-3-5-haiku-20241022',
              last_id: 'claude-3-5-haiku-20241022'
            })
          }
        : { status: 404, body: '' }
    )
    const result = await runtime().models!()
    expect(result.models).toHaveLength(1)
    expect(result.models[0]).toMatchObject({ id: 'claude-3-5-haiku-20241022', displayName: 'Claude Haiku 3.5', type: 'chat', releasedAt: '2024-10-22', maxOutput: 8192 })
    const req = server.requests.at(-1)!
    expect(req.headers['x-api-key']).toBe(KEY)
    expect(req.headers['anthropic-version']).toBeTruthy()
  })

  it('cancels mid-stream: the text so far, then ProviderBizError "Request was cancelled" and stop cancelled', async () => {
    server.handle(() => ({ headers: SSE_HEADERS, chunks: anthropicTextReply(['first']).slice(0, 4), stallMs: 5000 }))
    const controller = new AbortController()
    const events: StreamEvent[] = []
    for await (const e of runtime().chat!({ model: 'claude-3-5-haiku-20241022', messages: [{ role: 'user', content: 'hi' }] }, { signal: controller.signal, maxRetries: 0 })) {
      events.push(e)
      if (e.type === 'text') controller.abort()
    }
    expect(events.filter((e) => e.type === 'text').map((e) => e.data)).toEqual(['first'])
    expect(events.find((e) => e.type === 'error')).toMatchObject({ data: { errorType: 'ProviderBizError', message: 'Request was cancelled' } })
    expect(events.find((e) => e.type === 'stop')?.data).toBe('cancelled')
  })

  it('ends a stream that stalls after the headers with the idle watchdog', async () => {
    server.handle(() => ({ headers: SSE_HEADERS, chunks: anthropicTextReply(['slow']).slice(0, 4), stallMs: 5000 }))
    const events = await collect(runtime().chat!({ model: 'claude-3-5-haiku-20241022', messages: [{ role: 'user', content: 'hi' }] }, { idleTimeoutMs: 300, maxRetries: 0 }))
    expect(events.filter((e) => e.type === 'text').map((e) => e.data)).toEqual(['slow'])
    expect(events.find((e) => e.type === 'stop')?.data).toBe('interrupted')
  })

  it('refuses to start without a key', () => {
    expect(() => createAnthropicRuntime({}, { providerId: 'anthropic' })).toThrow(AppErrorException)
  })
})
