/* eslint-disable @typescript-eslint/no-explicit-any -- wire bodies are inspected loosely in tests */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AppErrorException } from '../../../src/shared/errors/app-error'
import type { StreamEvent } from '../../../src/shared/stream/events'
import { createBedrockRuntime } from '../../../src/core/runtime/providers/bedrock/bedrock-runtime'
import type { ChatRequest } from '../../../src/core/runtime/types'
import { startFakeHttpServer, type FakeServer } from '../../fixtures/fake-anthropic/fake-http-server'
import { BEDROCK_STREAM_HEADERS, bedrockChunk, bedrockClaudeReply, bedrockException, bedrockLlamaReply } from '../../fixtures/fake-bedrock/event-stream'

const SECRET = 'aws-secret-access-key-EXAMPLEKEY'
let server: FakeServer
beforeAll(async () => {
  // The Bedrock runtime client speaks HTTP/2.
  server = await startFakeHttpServer(undefined, { http2: true })
})
afterAll(() => server.close())

const collect = async (it: AsyncIterable<StreamEvent>) => {
  const out: StreamEvent[] = []
  for await (const e of it) out.push(e)
  return out
}
const runtime = (extra: Record<string, string> = {}) =>
  createBedrockRuntime({ accessKeyId: 'AKIAEXAMPLE', secretAccessKey: SECRET, baseURL: server.url, ...extra }, { providerId: 'bedrock' })
const chat = (request: Partial<ChatRequest> = {}) =>
  collect(runtime().chat!({ model: 'anthropic.claude-3-5-sonnet-20240620-v1:0', messages: [{ role: 'user', content: 'hi' }], ...request }, { maxRetries: 0 }))
const text = (events: StreamEvent[]) => events.filter((e) => e.type === 'text').map((e) => e.data).join('')
const errorOf = (events: StreamEvent[]) => {
  const e = events.find((x) => x.type === 'error')
  return e?.type === 'error' ? e.data : undefined
}

describe('bedrock runtime against a fake event-stream server', () => {
  it('streams Claude through InvokeModelWithResponseStream, signed for us-east-1, with the Bedrock body', async () => {
    server.handle(() => ({ headers: BEDROCK_STREAM_HEADERS, chunks: bedrockClaudeReply(['Hi', ' there']) }))
    const events = await chat({ temperature: 0.8 })
    expect(text(events)).toBe('Hi there')
    expect(events.find((e) => e.type === 'stop')?.data).toBe('end_turn')
    expect(events.find((e) => e.type === 'usage')?.data).toMatchObject({ totalInputTokens: 9, totalOutputTokens: 2 })
    const req = server.requests.at(-1)!
    expect(decodeURIComponent(req.path)).toBe('/model/anthropic.claude-3-5-sonnet-20240620-v1:0/invoke-with-response-stream')
    expect(String(req.headers.authorization)).toMatch(/Credential=AKIAEXAMPLE\/\d{8}\/us-east-1\/bedrock\/aws4_request/)
    const body = req.json as any
    expect(body.anthropic_version).toBe('bedrock-2023-05-31')
    expect(body.max_tokens).toBe(4096)
    expect(body.temperature).toBe(0.4)
    expect(body.model).toBeUndefined()
    expect(JSON.stringify(body)).not.toContain('cache_control')
  })

  it('streams Llama with max_gen_len 400 by default and halved temperature', async () => {
    server.handle(() => ({ headers: BEDROCK_STREAM_HEADERS, chunks: bedrockLlamaReply(['Hel', 'lo']) }))
    const events = await chat({ model: 'meta.llama3-1-8b-instruct-v1:0', temperature: 1 })
    expect(text(events)).toBe('Hello')
    expect(events.find((e) => e.type === 'stop')?.data).toBe('stop')
    expect(events.find((e) => e.type === 'usage')?.data).toMatchObject({ totalInputTokens: 7, totalOutputTokens: 2 })
    const body = server.requests.at(-1)!.json as any
    expect(body.max_gen_len).toBe(400)
    expect(body.temperature).toBe(0.5)
    expect(body.prompt).toContain('<|start_header_id|>user<|end_header_id|>\n\nhi<|eot_id|>')
  })

  it('uses the configured region', async () => {
    server.handle(() => ({ headers: BEDROCK_STREAM_HEADERS, chunks: bedrockLlamaReply(['x']) }))
    await collect(runtime({ region: 'eu-west-3' }).chat!({ model: 'meta.llama3-8b-instruct-v1:0', messages: [{ role: 'user', content: 'x' }] }, { maxRetries: 0 }))
    expect(String(server.requests.at(-1)!.headers.authorization)).toContain('/eu-west-3/bedrock/')
  })

  it('reports a truncated stream as interrupted', async () => {
    server.handle(() => ({ headers: BEDROCK_STREAM_HEADERS, chunks: bedrockClaudeReply(['part', 'ial']).slice(0, 3), cut: true }))
    const events = await chat()
    expect(text(events)).toBe('part')
    expect(events.find((e) => e.type === 'stop')?.data).toBe('interrupted')
  })

  it('turns an exception event mid-stream into an error after the text already sent', async () => {
    server.handle(() => ({ headers: BEDROCK_STREAM_HEADERS, chunks: [...bedrockClaudeReply(['so far']).slice(0, 3), bedrockException('modelStreamErrorException', 'Model stream failed')] }))
    const events = await chat()
    expect(text(events)).toBe('so far')
    expect(errorOf(events)?.message).toContain('Model stream failed')
    expect(events.find((e) => e.type === 'stop')?.data).not.toBe('end_turn')
  })

  it('turns a chunk whose JSON does not parse into StreamChunkError', async () => {
    server.handle(() => ({ headers: BEDROCK_STREAM_HEADERS, chunks: [bedrockClaudeReply(['a'])[0]!, bedrockChunk('{"type": "content_block_delta",')] }))
    expect(errorOf(await chat())?.errorType).toBe('StreamChunkError')
  })

  it('rejects a frame with a bad CRC', async () => {
    server.handle(() => ({ headers: BEDROCK_STREAM_HEADERS, chunks: [bedrockClaudeReply(['a'])[0]!, bedrockChunk({ type: 'ping' }, { corruptCrc: true })] }))
    const events = await chat()
    expect(errorOf(events)).toBeDefined()
    expect(events.find((e) => e.type === 'stop')?.data).not.toBe('end_turn')
  })

  it('maps a bad signature to InvalidBedrockCredentials and throttling to QuotaLimitReached, never echoing the secret', async () => {
    server.handle(() => ({
      status: 403,
      headers: { 'content-type': 'application/json', 'x-amzn-errortype': 'UnrecognizedClientException:http://internal.amazon.com/coral/com.amazon.coral.service/' },
      body: JSON.stringify({ message: `The security token included in the request is invalid. ${SECRET}` })
    }))
    let events = await chat()
    expect(errorOf(events)?.errorType).toBe('InvalidBedrockCredentials')
    expect(JSON.stringify(events)).not.toContain(SECRET)
    server.handle(() => ({ status: 429, headers: { 'content-type': 'application/json', 'x-amzn-errortype': 'ThrottlingException' }, body: JSON.stringify({ message: 'Too many requests' }) }))
    events = await chat()
    expect(errorOf(events)?.errorType).toBe('QuotaLimitReached')
  })

  it.each([
    [403, 'AccessDeniedException', 'You do not have access to the model with the specified model ID.', 'PermissionDenied'],
    [404, 'ResourceNotFoundException', 'Model not found.', 'ModelNotFound']
  ])('maps HTTP %i %s ("%s") to %s', async (status, type, message, expected) => {
    server.handle(() => ({ status, headers: { 'content-type': 'application/json', 'x-amzn-errortype': type }, body: JSON.stringify({ message }) }))
    expect(errorOf(await chat())?.errorType).toBe(expected)
  })

  it('embeds with one invoke per input (inputText, dimensions, normalize)', async () => {
    server.handle((req) => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify({ embedding: [(req.json as any).inputText.length, 0.5], inputTextTokenCount: 2 }) }))
    const before = server.requests.length
    const result = await runtime().embeddings!({ model: 'amazon.titan-embed-text-v2:0', input: ['ab', 'abcd'], dimensions: 256 })
    expect(result.embeddings).toEqual([[2, 0.5], [4, 0.5]])
    expect(result.usage?.totalTokens).toBe(4)
    const sent = server.requests.slice(before).map((r) => r.json)
    expect(sent).toEqual([{ inputText: 'ab', dimensions: 256, normalize: true }, { inputText: 'abcd', dimensions: 256, normalize: true }])
    expect(decodeURIComponent(server.requests.at(-1)!.path)).toBe('/model/amazon.titan-embed-text-v2:0/invoke')
  })

  it.each([
    ['no access key id', { secretAccessKey: 's' }],
    ['no secret', { accessKeyId: 'a' }]
  ])('refuses to start with %s (InvalidBedrockCredentials)', (_why, credentials) => {
    let caught: unknown
    try {
      createBedrockRuntime(credentials, { providerId: 'bedrock' })
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(AppErrorException)
    expect((caught as AppErrorException).error.errorType).toBe('InvalidBedrockCredentials')
  })
})
