/* eslint-disable @typescript-eslint/no-explicit-any -- wire bodies are inspected loosely in tests */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { StreamEvent } from '../../../src/shared/stream/events'
import { createGoogleRuntime } from '../../../src/core/runtime/providers/google/google-runtime'
import type { ChatRequest } from '../../../src/core/runtime/types'
import { startFakeHttpServer, type FakeServer } from '../../fixtures/fake-anthropic/fake-http-server'
import { SSE_HEADERS, geminiEvent, geminiRichReply, geminiTextReply, googleErrorBody } from '../../fixtures/fake-google/gemini-sse'

const KEY = 'AIza-secret-google-key-987'
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
const runtime = () => createGoogleRuntime({ apiKey: KEY, baseURL: server.url }, { providerId: 'google' })
const chat = (request: Partial<ChatRequest> = {}) =>
  collect(runtime().chat!({ model: 'gemini-2.5-flash', messages: [{ role: 'system', content: 'sys' }, { role: 'user', content: 'hi' }], ...request }, { maxRetries: 0 }))
const errorOf = (events: StreamEvent[]) => {
  const e = events.find((x) => x.type === 'error')
  return e?.type === 'error' ? e.data : undefined
}
const json = (status: number, body: string) => ({ status, headers: { 'content-type': 'application/json' }, body })

describe('google runtime against a fake Gemini API', () => {
  it('streams reasoning, text, a signed function call, an image, grounding, stop and usage', async () => {
    server.handle(() => ({ headers: SSE_HEADERS, chunks: geminiRichReply() }))
    const events = await chat({
      thinking: { type: 'enabled', budget_tokens: 90000 },
      temperature: 0.7,
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }]
    })
    expect(events.filter((e) => e.type === 'reasoning').map((e) => e.data).join('')).toBe('Considering…')
    expect(events.filter((e) => e.type === 'text').map((e) => e.data).join('')).toBe('Hello world')
    const call = events.flatMap((e) => (e.type === 'tool_calls' ? e.data : []))[0]!
    expect(call.function).toEqual({ name: 'get_weather', arguments: '{"city":"Paris"}' })
    expect(call.thoughtSignature).toBe('c2ln')
    expect(events.find((e) => e.type === 'base64_image')?.data).toEqual({ image: 'iVBORw0KGgo=', mimeType: 'image/png' })
    expect(events.find((e) => e.type === 'grounding')?.data).toEqual({ citations: [{ title: 'example.com', url: 'https://example.com/a', favicon: 'example.com' }], searchQueries: ['weather paris'] })
    expect(events.find((e) => e.type === 'stop')?.data).toBe('STOP')
    expect(events.find((e) => e.type === 'usage')?.data).toMatchObject({ totalInputTokens: 8, outputReasoningTokens: 5, totalOutputTokens: 9 })
    const req = server.requests.at(-1)!
    expect(req.path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse')
    expect(req.headers['x-goog-api-key']).toBe(KEY)
    const body = req.json as any
    expect(body.systemInstruction.parts[0].text).toBe('sys')
    expect(body.generationConfig.thinkingConfig).toEqual({ includeThoughts: true, thinkingBudget: 24576 })
    expect(body.generationConfig.temperature).toBe(0.7)
    expect(body.tools[0].functionDeclarations[0].name).toBe('get_weather')
  })

  it('sends stop sequences as generationConfig.stopSequences', async () => {
    server.handle(() => ({ headers: SSE_HEADERS, chunks: geminiTextReply(['one']) }))
    await chat({ stop: ['END', '###'] })
    expect((server.requests.at(-1)!.json as any).generationConfig.stopSequences).toEqual(['END', '###'])
  })

  it('reports a stream without finishReason as interrupted, keeping the text', async () => {
    server.handle(() => ({ headers: SSE_HEADERS, chunks: geminiTextReply(['one ', 'two', 'three']).slice(0, 2), cut: true }))
    const events = await chat()
    expect(events.filter((e) => e.type === 'text').map((e) => e.data).join('')).toBe('one two')
    expect(events.find((e) => e.type === 'stop')?.data).toBe('interrupted')
  })

  it('turns a malformed chunk into StreamChunkError', async () => {
    server.handle(() => ({ headers: SSE_HEADERS, chunks: [geminiTextReply(['ok', 'x'])[0]!, 'data: {"candidates": [\r\n\r\n'] }))
    const events = await chat()
    expect(errorOf(events)?.errorType).toBe('StreamChunkError')
  })

  it('turns an error object mid-stream into an error after the text already sent', async () => {
    server.handle(() => ({ headers: SSE_HEADERS, chunks: [geminiTextReply(['partial', 'x'])[0]!, geminiEvent({ error: { code: 500, message: 'Internal error encountered.', status: 'INTERNAL' } })] }))
    const events = await chat()
    expect(events.filter((e) => e.type === 'text').map((e) => e.data)).toEqual(['partial'])
    expect(errorOf(events)).toBeDefined()
    expect(events.find((e) => e.type === 'stop')?.data).not.toBe('STOP')
  })

  it('maps a blocked prompt to its block-reason text', async () => {
    server.handle(() => ({ headers: SSE_HEADERS, chunks: [geminiEvent({ promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 3, totalTokenCount: 3 } })] }))
    const error = errorOf(await chat())
    expect(error).toMatchObject({ errorType: 'ProviderBizError', message: 'The content was blocked for safety reasons. Please adjust it and try again.' })
  })

  it.each([
    [400, 'API key not valid. Please pass a valid API key.', 'INVALID_ARGUMENT', 'InvalidProviderAPIKey'],
    [400, 'User location is not supported for the API use.', 'FAILED_PRECONDITION', 'LocationNotSupportError'],
    [429, 'Resource has been exhausted (e.g. check quota).', 'RESOURCE_EXHAUSTED', 'QuotaLimitReached'],
    [500, 'Something odd', 'INTERNAL', 'ProviderBizError']
  ])('maps HTTP %i "%s" (%s) to %s without leaking the key', async (status, message, grpc, expected) => {
    server.handle(() => json(status, googleErrorBody(status, `${message} key=${KEY}`, grpc)))
    const events = await chat()
    expect(errorOf(events)?.errorType).toBe(expected)
    expect(JSON.stringify(events)).not.toContain(KEY)
  })

  it('lists models from GET /v1beta/models', async () => {
    server.handle((req) =>
      req.path.startsWith('/v1beta/models')
        ? json(200, JSON.stringify({ models: [{ name: 'models/gemini-2.5-pro', displayName: 'Gemini 2.5 Pro', inputTokenLimit: 1048576, outputTokenLimit: 65536, supportedGenerationMethods: ['generateContent'] }] }))
        : json(404, '{}')
    )
    const { models } = await runtime().models!()
    expect(models).toHaveLength(1)
    expect(models[0]).toMatchObject({ id: 'gemini-2.5-pro', displayName: 'Gemini 2.5 Pro', type: 'chat', contextWindowTokens: 1048576 + 65536, maxOutput: 65536 })
    expect(server.requests.at(-1)!.headers['x-goog-api-key']).toBe(KEY)
  })

  it('generates one Imagen image', async () => {
    server.handle((req) => json(200, JSON.stringify(req.path.includes(':predict') ? { predictions: [{ bytesBase64Encoded: 'QUJD', mimeType: 'image/png' }] } : {})))
    const result = await runtime().createImage!({ model: 'imagen-4.0-generate-001', params: { prompt: 'a cat', aspectRatio: '16:9' } })
    expect(result.imageUrl).toBe('data:image/png;base64,QUJD')
    const body = server.requests.at(-1)!.json as any
    expect(body.parameters.sampleCount).toBe(1)
    expect(body.instances[0].prompt).toBe('a cat')
  })
})
