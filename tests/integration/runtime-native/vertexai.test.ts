import { generateKeyPairSync } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AppErrorException } from '../../../src/shared/errors/app-error'
import type { StreamEvent } from '../../../src/shared/stream/events'
import { createVertexRuntime } from '../../../src/core/runtime/providers/vertexai/vertex-runtime'
import { startFakeHttpServer, type FakeServer } from '../../fixtures/fake-anthropic/fake-http-server'
import { SSE_HEADERS, geminiTextReply } from '../../fixtures/fake-google/gemini-sse'

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
const PEM = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()
const ACCOUNT = JSON.stringify({ type: 'service_account', project_id: 'proj-1', client_email: 'sa@proj-1.iam.gserviceaccount.com', private_key: PEM })

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

describe('vertex ai runtime', () => {
  it('streams through the real SDK with a signed service-account token', async () => {
    server.handle(() => ({ headers: SSE_HEADERS, chunks: geminiTextReply(['Bon', 'jour']) }))
    server.handle((req) =>
      req.path === '/token'
        ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ access_token: 'ya29.fake-token', expires_in: 3600, token_type: 'Bearer' }) }
        : { headers: SSE_HEADERS, chunks: geminiTextReply(['Bon', 'jour']) }
    )
    // Google's token endpoint is the one fixed URL of the auth library: routed to the fake.
    const routed: typeof fetch = (input, init) => {
      const url = String(input instanceof Request ? input.url : input)
      return fetch(url.replace('https://oauth2.googleapis.com', server.url), init)
    }
    const runtime = createVertexRuntime({ serviceAccountJson: ACCOUNT, baseURL: server.url, location: 'us-central1' }, { providerId: 'vertexai' })
    const events = await collect(runtime.chat!({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }] }, { maxRetries: 0, fetch: routed }))
    expect(events.filter((e) => e.type === 'text').map((e) => e.data).join('')).toBe('Bonjour')
    expect(events.find((e) => e.type === 'stop')?.data).toBe('STOP')
    const req = server.requests.at(-1)!
    expect(req.path).toMatch(/\/projects\/proj-1\/locations\/us-central1\/publishers\/google\/models\/gemini-2\.5-flash:streamGenerateContent\?alt=sse$/)
    expect(req.headers.authorization).toBe('Bearer ya29.fake-token')
    // The exchange sent a JWT assertion signed for the service account.
    const exchange = server.requests.find((r) => r.path === '/token')!
    const assertion = new URLSearchParams(exchange.body).get('assertion')!
    expect(JSON.parse(Buffer.from(assertion.split('.')[1]!, 'base64url').toString()).iss).toBe('sa@proj-1.iam.gserviceaccount.com')
    expect(runtime.models).toBeUndefined()
  })

  it('generates one Imagen image through the SDK (numberOfImages 1)', async () => {
    server.handle((req) =>
      req.path === '/token'
        ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ access_token: 'ya29.fake-token', expires_in: 3600, token_type: 'Bearer' }) }
        : { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ predictions: [{ bytesBase64Encoded: 'SU1H', mimeType: 'image/png' }] }) }
    )
    const routed: typeof fetch = (input, init) => fetch(String(input instanceof Request ? input.url : input).replace('https://oauth2.googleapis.com', server.url), init)
    const runtime = createVertexRuntime({ serviceAccountJson: ACCOUNT, baseURL: server.url }, { providerId: 'vertexai' })
    const result = await runtime.createImage!({ model: 'imagen-4.0-generate-001', params: { prompt: 'a fox' } }, { fetch: routed })
    expect(result.imageUrl).toBe('data:image/png;base64,SU1H')
    const req = server.requests.at(-1)!
    expect(req.path).toMatch(/\/locations\/global\/publishers\/google\/models\/imagen-4\.0-generate-001:predict$/)
    expect((req.json as { parameters: { sampleCount: number } }).parameters.sampleCount).toBe(1)
  })

  it('reports a service account refused at the token endpoint as InvalidVertexCredentials', async () => {
    server.handle((req) =>
      req.path === '/token'
        ? { status: 400, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ error: 'invalid_grant', error_description: 'Invalid JWT Signature.' }) }
        : { headers: SSE_HEADERS, chunks: geminiTextReply(['never']) }
    )
    const routed: typeof fetch = (input, init) => fetch(String(input instanceof Request ? input.url : input).replace('https://oauth2.googleapis.com', server.url), init)
    const runtime = createVertexRuntime({ serviceAccountJson: ACCOUNT, baseURL: server.url }, { providerId: 'vertexai' })
    const events = await collect(runtime.chat!({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }] }, { maxRetries: 0, fetch: routed }))
    const error = events.find((e) => e.type === 'error')
    expect(error?.type === 'error' && error.data.errorType).toBe('InvalidVertexCredentials')
    expect(JSON.stringify(events)).not.toContain('PRIVATE KEY')
  })

  it.each([
    ['missing', {}],
    ['not JSON', { serviceAccountJson: '{nope' }],
    ['without private key', { serviceAccountJson: JSON.stringify({ client_email: 'a@b', project_id: 'p' }) }],
    ['without project', { serviceAccountJson: JSON.stringify({ client_email: 'a@b', private_key: PEM }) }]
  ])('refuses credentials that are %s with InvalidVertexCredentials', (_why, credentials) => {
    let caught: unknown
    try {
      createVertexRuntime(credentials, { providerId: 'vertexai' })
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(AppErrorException)
    expect((caught as AppErrorException).error.errorType).toBe('InvalidVertexCredentials')
    expect(JSON.stringify((caught as AppErrorException).error)).not.toContain('PRIVATE KEY')
  })
})
