import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readdirSync, readFileSync, existsSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { join } from 'node:path'
import OpenAI from 'openai'
import Anthropic from '@anthropic-ai/sdk'
import type { Core } from '../../../src/core'
import { MemoryBackend } from '../../../src/core/secrets'
import type { Result } from '../../../src/shared/errors/app-error'
import { createAppGatewayBackend } from '../../../src/core/gateway/app-backend'
import { startGatewayServer, type GatewayAccessConfig, type GatewayServer } from '../../../src/core/gateway/gateway-server'
import { newApiKey, type StoredApiKey } from '../../../src/core/gateway/access'
import { chatChunks, startFakeOpenAI, type FakeOpenAI } from '../../fixtures/fake-openai'
import { startTestCore, type TestCore } from '../test-core'

// Who may call the local API, and what happens when a call goes wrong: every refusal is in the
// caller's API shape with the right status, and nothing secret reaches the log.
let fake: FakeOpenAI
let app: TestCore
let core: Core
let gateway: GatewayServer
let dataDir: string
const secrets: Record<string, string> = {}
const config: GatewayAccessConfig & { keys: StoredApiKey[] } = { keys: [], aliases: {}, allowedOrigins: ['https://notes.example'], allowedHosts: ['switchboard.lan'] }

function addKey(id: string, extra: Partial<StoredApiKey> = {}): string {
  const k = newApiKey()
  config.keys.push({ id, name: id, prefix: k.prefix, hash: k.hash, createdAt: Date.now(), ...extra })
  secrets[id] = k.secret
  return k.secret
}

const ok = <T>(r: Result<T>) => {
  if (!r.ok) throw new Error(r.error.message)
  return r.value
}

beforeAll(async () => {
  fake = await startFakeOpenAI()
  app = await startTestCore('sb-gateway-access-', { secrets: { backend: new MemoryBackend() } })
  core = app.core
  dataDir = app.dataDir
  const client = app.client
  ok(await client.call('providers.update', { providerId: 'openai', baseURL: fake.url }))
  ok(await client.call('providers.setKey', { providerId: 'openai', apiKey: 'sk-upstream-SECRET-0123456789' }))
  addKey('main')
  addKey('revoked', { revokedAt: Date.now() })
  addKey('mini-only', { allowedModels: ['openai/gpt-4o-mini'] })
  addKey('slow', { rateLimitPerMinute: 2 })
  addKey('capped', { spendCapUsd: 0.5 })
  const backend = createAppGatewayBackend({ caller: core.services().caller, providers: core.services().providers, usage: core.services().store.usage, builtin: core.services().engine })
  gateway = await startGatewayServer({ host: '127.0.0.1', port: 0, backend, config: () => config, maxBodyBytes: 1024 * 1024 })
})

afterAll(async () => {
  await gateway?.close()
  await app?.close()
  await fake?.close()
})

const openai = (key?: string) => new OpenAI({ apiKey: key ?? 'none', baseURL: `${gateway.url}/v1`, maxRetries: 0, ...(key === undefined ? { defaultHeaders: { authorization: null } } : {}) })
const anthropic = (key: string) => new Anthropic({ apiKey: key, baseURL: gateway.url, maxRetries: 0 })
const chat = (client: OpenAI, model = 'openai/gpt-4o-mini') => client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] })
const failure = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e as InstanceType<typeof OpenAI.APIError>)

function raw(options: { method?: string; path: string; headers?: Record<string, string>; body?: string | Buffer }): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const url = new URL(gateway.url)
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, method: options.method ?? 'POST', path: options.path, headers: options.headers }, (res) => {
      const parts: Buffer[] = []
      res.on('data', (c: Buffer) => parts.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts).toString('utf8') }))
    })
    req.on('error', reject)
    req.end(options.body)
  })
}

describe('keys', () => {
  it('no key, a wrong key and a revoked key are 401 in OpenAI’s shape', async () => {
    const none = await failure(chat(openai(undefined)))
    expect(none).toBeInstanceOf(OpenAI.AuthenticationError)
    expect(none!.message).toContain('No API key')
    const wrong = await failure(chat(openai('sb-not-a-real-key')))
    expect(wrong).toBeInstanceOf(OpenAI.AuthenticationError)
    expect((wrong!.error as { type: string }).type).toBe('authentication_error')
    const revoked = await failure(chat(openai(secrets['revoked'])))
    expect(revoked).toBeInstanceOf(OpenAI.AuthenticationError)
    expect(revoked!.message).toContain('revoked')
  })

  it('a wrong key is 401 in Anthropic’s shape on /v1/messages', async () => {
    const error = (await anthropic('sb-wrong')
      .messages.create({ model: 'openai/gpt-4o-mini', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] })
      .then(() => undefined, (e: unknown) => e)) as InstanceType<typeof Anthropic.APIError>
    expect(error).toBeInstanceOf(Anthropic.AuthenticationError)
    expect(error.error).toMatchObject({ type: 'error', error: { type: 'authentication_error' } })
  })

  it('a key limited to some models is refused others (403) and lists only its own', async () => {
    const error = await failure(chat(openai(secrets['mini-only']), 'openai/gpt-4o'))
    expect(error).toBeInstanceOf(OpenAI.PermissionDeniedError)
    expect(error!.message).toContain('may not use openai/gpt-4o')
    const models = await openai(secrets['mini-only']).models.list()
    expect(models.data.every((m) => m.id === 'openai/gpt-4o-mini')).toBe(true)
  })

  it('over the rate limit is 429 with Retry-After', async () => {
    const client = openai(secrets['slow'])
    await chat(client)
    await chat(client)
    const error = await failure(chat(client))
    expect(error).toBeInstanceOf(OpenAI.RateLimitError)
    expect(Number(error!.headers?.get('retry-after'))).toBeGreaterThan(0)
  })

  it('over the spend cap is 429 insufficient_quota, from the same ledger as Usage', async () => {
    const client = openai(secrets['capped'])
    // gpt-4o-mini: 1M in + 1M out = $0.75, over the $0.50 cap after the first call.
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['pricey'], { usage: { prompt_tokens: 1_000_000, completion_tokens: 1_000_000, total_tokens: 2_000_000 } }) })
    await chat(client)
    const error = await failure(chat(client))
    expect(error).toBeInstanceOf(OpenAI.RateLimitError)
    expect(error!.code).toBe('insufficient_quota')
    expect(error!.message).toContain('cap')
  })
})

describe('who may reach it', () => {
  it('a Host that is not an IP, localhost or a listed name is refused (DNS rebinding)', async () => {
    const body = JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })
    const headers = { authorization: `Bearer ${secrets['main']}`, 'content-type': 'application/json' }
    const evil = await raw({ path: '/v1/chat/completions', headers: { ...headers, host: 'attacker.example' }, body })
    expect(evil.status).toBe(403)
    expect(JSON.parse(evil.body).error.type).toBe('permission_error')
    const listed = await raw({ path: '/v1/chat/completions', headers: { ...headers, host: 'switchboard.lan:1234' }, body })
    expect(listed.status).toBe(200)
  })

  it('a cross-site browser request is refused unless its origin is listed; a listed one gets CORS', async () => {
    const body = JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })
    // A "simple" request a page can send without a preflight: text/plain, no custom headers.
    const simple = await raw({ path: '/v1/chat/completions', headers: { origin: 'https://evil.example', 'content-type': 'text/plain' }, body })
    expect(simple.status).toBe(403)
    const preflight = await raw({ method: 'OPTIONS', path: '/v1/chat/completions', headers: { origin: 'https://notes.example', 'access-control-request-method': 'POST' } })
    expect(preflight.status).toBe(204)
    expect(preflight.headers['access-control-allow-origin']).toBe('https://notes.example')
    const allowed = await raw({ path: '/v1/chat/completions', headers: { origin: 'https://notes.example', authorization: `Bearer ${secrets['main']}`, 'content-type': 'application/json' }, body })
    expect(allowed.status).toBe(200)
    expect(allowed.headers['access-control-allow-origin']).toBe('https://notes.example')
  })

  it('an oversized body is 413 before it is read', async () => {
    const big = Buffer.alloc(2 * 1024 * 1024, 'a')
    const res = await raw({ path: '/v1/chat/completions', headers: { authorization: `Bearer ${secrets['main']}`, 'content-type': 'application/json', 'content-length': String(big.length) }, body: big })
    expect(res.status).toBe(413)
    expect(JSON.parse(res.body).error.code).toBe('request_too_large')
  })

  it('malformed bodies name the field', async () => {
    const error = await failure(openai(secrets['main']).chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [] }))
    expect(error).toBeInstanceOf(OpenAI.BadRequestError)
    expect((error!.error as { param: string }).param).toBe('messages')
  })
})

describe('faults', () => {
  it('a client that hangs up mid-stream stops the upstream call, and what was produced is logged', async () => {
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(Array.from({ length: 60 }, (_, i) => `word${i} `)), delayMs: 40 })
    const before = core.services().store.usage.spentByKey('main').calls
    const controller = new AbortController()
    const stream = await openai(secrets['main']).chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'long' }], stream: true }, { signal: controller.signal })
    let seen = 0
    await (async () => {
      for await (const chunk of stream) {
        if (chunk.choices[0]?.delta.content) seen++
        if (seen === 3) controller.abort()
      }
    })().catch(() => undefined)
    await expect.poll(() => fake.activeResponses(), { timeout: 10_000 }).toBe(0)
    await expect.poll(() => core.services().store.usage.spentByKey('main').calls, { timeout: 10_000 }).toBe(before + 1)
    const entry = core.services().store.usage.list({ scene: 'Local API', limit: 1 })[0]!
    expect(entry.usage?.totalOutputTokens).toBeGreaterThan(0)
  })

  it('50 concurrent streams each get their whole reply', async () => {
    fake.setDefault('/chat/completions', (req) => {
      const n = (req.body as { messages: Array<{ content: string }> }).messages[0]!.content
      return { kind: 'sse', chunks: chatChunks([`reply `, `to `, n], { usage: { prompt_tokens: 3, completion_tokens: 3, total_tokens: 6 } }), delayMs: 5 }
    })
    const client = openai(secrets['main'])
    const texts = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const stream = await client.chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: `#${i}` }], stream: true })
        let text = ''
        for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? ''
        return text
      })
    )
    expect(texts).toEqual(Array.from({ length: 50 }, (_, i) => `reply to #${i}`))
  })

  it('neither a key nor a prompt reaches the log files', async () => {
    fake.enqueue('/chat/completions', { kind: 'json', status: 500, body: { error: { message: 'boom', type: 'server_error' } } })
    await failure(openai(secrets['main']).chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'PROMPT-CANARY-81723' }] }))
    const logs = join(dataDir, 'logs')
    const text = existsSync(logs) ? readdirSync(logs).map((f) => readFileSync(join(logs, f), 'utf8')).join('\n') : ''
    for (const secret of Object.values(secrets)) expect(text).not.toContain(secret)
    expect(text).not.toContain('sk-upstream-SECRET')
    expect(text).not.toContain('PROMPT-CANARY-81723')
  })
})
