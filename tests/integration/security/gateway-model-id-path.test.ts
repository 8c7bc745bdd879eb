import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import OpenAI from 'openai'
import type { Core } from '../../../src/core'
import { MemoryBackend } from '../../../src/core/secrets'
import type { Result } from '../../../src/shared/errors/app-error'
import { startFakeHttpServer, type FakeServer } from '../../fixtures/fake-anthropic/fake-http-server'
import { SSE_HEADERS, workersAIReply } from '../../fixtures/fake-cloudflare/sse'
import { geminiTextReply, SSE_HEADERS as GEMINI_SSE } from '../../fixtures/fake-google/gemini-sse'
import { readyTestCore } from '../test-core'

// An attacker holds a gateway key and nothing else. The owner has set a Cloudflare and a Google
// key; each upstream is a loopback server that records every path it is asked for. A model id
// is a value: whatever the attacker writes in it, the owner's key goes only to the model's own
// URL under the provider's prefix, or nowhere.
const CF_KEY = 'cf-owner-secret-0123456789'
const GOOGLE_KEY = 'AIza-owner-secret-google-987'
const CF_RUN = '/client/v4/accounts/acc-1/ai/run/'
let dir: string
let core: Core
let upstream: FakeServer
let sdk: OpenAI
let gateway: string
let secret: string

const ok = <T>(r: Result<T>): T => {
  if (!r.ok) throw new Error(`${r.error.errorType}: ${r.error.message}`)
  return r.value
}

beforeAll(async () => {
  upstream = await startFakeHttpServer()
  dir = mkdtempSync(join(tmpdir(), 'sb-sec-model-id-'))
  const app = await readyTestCore('sb-sec-model-id-', { dataDir: dir, secrets: { backend: new MemoryBackend() }, localApi: { port: 0 } })
  core = app.core
  const client = app.client
  ok(await client.call('providers.update', { providerId: 'cloudflare', baseURL: `${upstream.url}${CF_RUN.slice(0, -1)}` }))
  ok(await client.call('providers.setKey', { providerId: 'cloudflare', apiKey: CF_KEY }))
  ok(await client.call('providers.update', { providerId: 'google', baseURL: upstream.url }))
  ok(await client.call('providers.setKey', { providerId: 'google', apiKey: GOOGLE_KEY }))
  secret = ok(await client.call('localApi.createKey', { name: 'attacker' })).secret
  gateway = ok(await client.call('localApi.update', { enabled: true })).url!
  sdk = new OpenAI({ apiKey: secret, baseURL: `${gateway}/v1`, maxRetries: 0 })
}, 60_000)

afterAll(async () => {
  await core?.close()
  await upstream?.close()
  rmSync(dir, { recursive: true, force: true })
})

beforeEach(() => {
  upstream.requests.length = 0
  upstream.handle((request) =>
    request.path.startsWith('/v1beta/') ? { headers: GEMINI_SSE, chunks: geminiTextReply(['pong']) } : { headers: SSE_HEADERS, chunks: workersAIReply(['pong']) }
  )
})

const ask = (model: string) => sdk.chat.completions.create({ model, messages: [{ role: 'user', content: 'ping' }], max_tokens: 8 })

/** Each path the upstream saw with the owner's key, as it saw it. */
const keyedPaths = () => upstream.requests.filter((r) => r.headers.authorization === `Bearer ${CF_KEY}` || r.headers['x-goog-api-key'] === GOOGLE_KEY).map((r) => r.path)

describe('a model id through the local API never walks the upstream URL', () => {
  it('control: a normal Cloudflare model id (slashes and all) reaches its run URL with the owner’s key', async () => {
    const reply = await ask('cloudflare/@cf/meta/llama-3-8b-instruct')
    expect(reply.choices[0]!.message.content).toBe('pong')
    expect(keyedPaths()).toEqual([`${CF_RUN}@cf/meta/llama-3-8b-instruct`])
  })

  it('control: a normal Gemini model id reaches its model URL with the owner’s key', async () => {
    const reply = await ask('google/gemini-2.5-flash')
    expect(reply.choices[0]!.message.content).toBe('pong')
    expect(keyedPaths()).toEqual(['/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse'])
  })

  const cloudflareAttacks = [
    '@cf/meta/x?/../../../../../../admin',
    '../../../../user/tokens/verify',
    '@cf/../../../../../user',
    '..%2f..%2f..%2f..%2fuser%2ftokens%2fverify',
    '%2e%2e/%2e%2e/%2e%2e/%2e%2e/user',
    '@cf//127.0.0.1:1/x',
    '@cf/meta/x#/../../admin',
    '@cf\\..\\..\\..\\..\\user',
    '@cf/./meta/x',
    '@cf/meta/x\u0000',
    '@cf/meta/x\r\nx-injected: 1'
  ]
  for (const model of cloudflareAttacks) {
    it(`refuses cloudflare/${JSON.stringify(model)} before the owner’s key leaves the app`, async () => {
      const error = await ask(`cloudflare/${model}`).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(OpenAI.APIError)
      expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(400)
      // Not one keyed request outside the run prefix; here, none at all.
      expect(keyedPaths()).toEqual([])
    })
  }

  const googleAttacks = ['%2e%2e/%2e%2e/v1/secrets', 'gemini-2.5-flash#', 'x%2f..%2f..%2fv1%2fsecrets', 'gemini/../../../v1/x']
  for (const model of googleAttacks) {
    it(`refuses google/${JSON.stringify(model)} before the owner’s key leaves the app`, async () => {
      const error = await ask(`google/${model}`).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(OpenAI.APIError)
      expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(400)
      expect(keyedPaths()).toEqual([])
    })
  }

  it('plain fetch with the same attack gets the API’s own error shape, and the gateway still serves the next call', async () => {
    const response = await fetch(`${gateway}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'cloudflare/@cf/meta/x?/../../../../../../admin', messages: [{ role: 'user', content: 'x' }] })
    })
    expect(response.status).toBe(400)
    const body = (await response.json()) as { error: { type: string; message: string } }
    expect(body.error.type).toBe('invalid_request_error')
    expect(body.error.message).toMatch(/model id/i)
    expect(body.error.message).not.toContain(CF_KEY)
    expect(keyedPaths()).toEqual([])
    expect((await ask('cloudflare/@cf/qwen/qwq-32b')).choices[0]!.message.content).toBe('pong')
  })
})
