import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request as httpRequest } from 'node:http'
import OpenAI from 'openai'
import Anthropic from '@anthropic-ai/sdk'
import type { Core } from '../../../src/core'
import { MemoryBackend } from '../../../src/core/secrets'
import type { Result } from '../../../src/shared/errors/app-error'
import { createAppGatewayBackend } from '../../../src/core/gateway/app-backend'
import { startGatewayServer, type GatewayAccessConfig, type GatewayServer } from '../../../src/core/gateway/gateway-server'
import { newApiKey, type StoredApiKey } from '../../../src/core/gateway/access'
import { chatChunks, startFakeOpenAI, type FakeOpenAI } from '../../fixtures/fake-openai'
import { startTestCore } from '../test-core'

// Input a hostile client sends with a valid key: ids that name Object.prototype's own members,
// JSON nested deep enough to exhaust a recursive walk, and a body larger than the limit with no
// length declared. Each is refused in the API's own shape, before any work, and the server lives.
let fake: FakeOpenAI
let core: Core
let gateway: GatewayServer
let secret: string
const LIMIT = 1024 * 1024
const config: GatewayAccessConfig & { keys: StoredApiKey[] } = { keys: [], aliases: { fast: 'openai/gpt-4o-mini' }, allowedOrigins: [], allowedHosts: [] }

const ok = <T>(r: Result<T>) => {
  if (!r.ok) throw new Error(r.error.message)
  return r.value
}

beforeAll(async () => {
  fake = await startFakeOpenAI()
  const app = await startTestCore('sb-gateway-hostile-', { secrets: { backend: new MemoryBackend() } })
  core = app.core
  const client = app.client
  ok(await client.call('providers.update', { providerId: 'openai', baseURL: fake.url }))
  ok(await client.call('providers.setKey', { providerId: 'openai', apiKey: 'sk-upstream-SECRET-0123456789' }))
  const k = newApiKey()
  config.keys.push({ id: 'main', name: 'main', prefix: k.prefix, hash: k.hash, createdAt: Date.now() })
  secret = k.secret
  const backend = createAppGatewayBackend({ caller: core.services().caller, providers: core.services().providers, usage: core.services().store.usage, builtin: core.services().engine })
  gateway = await startGatewayServer({ host: '127.0.0.1', port: 0, backend, config: () => config, maxBodyBytes: LIMIT })
})

afterAll(async () => {
  await gateway?.close()
  await core?.close()
  await fake?.close()
})

const openai = () => new OpenAI({ apiKey: secret, baseURL: `${gateway.url}/v1`, maxRetries: 0 })
const post = (path: string, body: string) => fetch(`${gateway.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }, body })
const PROTOTYPE_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', 'propertyIsEnumerable', 'toLocaleString', '__defineGetter__', '__lookupGetter__']

describe('ids that are Object.prototype’s own names', () => {
  for (const id of PROTOTYPE_NAMES) {
    it(`provider ${id}: 404 in each API’s shape, from every route`, async () => {
      const chat = await openai().chat.completions.create({ model: `${id}/x`, messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e)
      expect(chat).toBeInstanceOf(OpenAI.NotFoundError)
      expect((chat as InstanceType<typeof OpenAI.APIError>).message).toMatch(/unknown provider/i)
      const embed = await post('/v1/embeddings', JSON.stringify({ model: `${id}/x`, input: 'x' }))
      expect(embed.status).toBe(404)
      expect(((await embed.json()) as { error: { type: string } }).error.type).toBe('not_found_error')
      const responses = await post('/v1/responses', JSON.stringify({ model: `${id}/x`, input: 'x' }))
      expect(responses.status).toBe(404)
      const messages = await new Anthropic({ apiKey: secret, baseURL: gateway.url, maxRetries: 0 }).messages.create({ model: `${id}/x`, max_tokens: 4, messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e)
      expect(messages).toBeInstanceOf(Anthropic.NotFoundError)
    })

    it(`model or alias ${id}: 404, not an alias found on the prototype`, async () => {
      const error = await openai().chat.completions.create({ model: id, messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(OpenAI.NotFoundError)
    })
  }

  it('a real provider’s model named like a prototype member is only a name: it reaches the upstream', async () => {
    for (const id of ['constructor', '__proto__', 'toString']) {
      fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['ok']) })
      const reply = await openai().chat.completions.create({ model: `openai/${id}`, messages: [{ role: 'user', content: 'hi' }] })
      expect(reply.choices[0]!.message.content).toBe('ok')
      expect((fake.requestsTo('/chat/completions').at(-1)!.body as { model: string }).model).toBe(id)
    }
  })

  it('control: an alias and a known provider still answer', async () => {
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['fine']) })
    expect((await openai().chat.completions.create({ model: 'fast', messages: [{ role: 'user', content: 'hi' }] })).choices[0]!.message.content).toBe('fine')
  })
})

describe('JSON nested past any real request', () => {
  const nested = (depth: number, leaf = '{"type":"string"}') => '{"type":"object","properties":{"a":'.repeat(depth) + leaf + '}}'.repeat(depth)

  it('deep tools[].function.parameters is a 400 naming the limit, before any upstream call', async () => {
    const before = fake.requests.length
    const body = `{"model":"openai/gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":${nested(20_000)}}}]}`
    const response = await post('/v1/chat/completions', body)
    expect(response.status).toBe(400)
    const error = ((await response.json()) as { error: { type: string; message: string } }).error
    expect(error.type).toBe('invalid_request_error')
    expect(error.message).toMatch(/nests/i)
    expect(fake.requests.length).toBe(before)
  })

  it('deep arrays in a message, in Anthropic’s shape on /v1/messages', async () => {
    const body = `{"model":"openai/gpt-4o-mini","max_tokens":4,"messages":[{"role":"user","content":"hi"}],"metadata":${'['.repeat(50_000)}${']'.repeat(50_000)}}`
    const response = await fetch(`${gateway.url}/v1/messages`, { method: 'POST', headers: { 'x-api-key': secret, 'content-type': 'application/json' }, body })
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: expect.stringMatching(/nests/i) } })
  })

  it('brackets inside strings do not count, and a real schema of ordinary depth still works', async () => {
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['ok']) })
    const body = JSON.stringify({
      model: 'openai/gpt-4o-mini',
      messages: [{ role: 'user', content: '['.repeat(10_000) + '{'.repeat(10_000) }],
      tools: [{ type: 'function', function: { name: 'f', parameters: JSON.parse(nested(20)) as unknown } }]
    })
    const response = await post('/v1/chat/completions', body)
    expect(response.status).toBe(200)
  })
})

/**
 * Streams `total` bytes with no Content-Length, on until the server hangs up or takes them all;
 * how much the client had written when the answer came, and in all.
 */
function chunkedUpload(path: string, total: number): Promise<{ status?: number; connection?: string; body: string; writtenAtAnswer: number; written: number }> {
  const url = new URL(gateway.url)
  return new Promise((resolve) => {
    let written = 0
    let writtenAtAnswer = -1
    let status: number | undefined
    let connection: string | undefined
    let body = ''
    let settled = false
    const done = () => {
      if (settled) return
      settled = true
      resolve({ status, connection, body, writtenAtAnswer, written })
    }
    const req = httpRequest({ host: url.hostname, port: url.port, method: 'POST', path, headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
      status = res.statusCode
      connection = res.headers.connection
      writtenAtAnswer = written
      res.on('data', (c: Buffer) => (body += c.toString('utf8')))
    })
    req.on('error', done)
    req.on('close', () => setTimeout(done, 50))
    const piece = Buffer.alloc(64 * 1024, 0x20)
    req.write('{"model":"openai/gpt-4o-mini","messages":[],"x":"')
    const pump = (): void => {
      while (!req.destroyed && written < total) {
        written += piece.length
        if (!req.write(piece)) {
          req.once('drain', pump)
          return
        }
      }
      if (!req.destroyed) req.end('"}', () => setTimeout(done, 50))
    }
    pump()
  })
}

describe('a body over the limit with no length declared', () => {
  it('is refused with 413 in the API’s shape while it streams in, and the rest is not read', async () => {
    const total = 60 * 1024 * 1024
    const result = await chunkedUpload('/v1/chat/completions', total)
    expect(result.status).toBe(413)
    expect(JSON.parse(result.body)).toMatchObject({ error: { type: 'invalid_request_error', code: 'request_too_large' } })
    expect(result.writtenAtAnswer).toBeLessThan(8 * LIMIT)
    // The server hangs up instead of reading the other 59 MiB (or keeping a connection whose next
    // bytes are this body's).
    expect(result.connection).toBe('close')
    expect(result.written).toBeLessThan(total)
  }, 60_000)

  it('the server keeps answering after it', async () => {
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['alive']) })
    expect((await openai().chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })).choices[0]!.message.content).toBe('alive')
  })
})
