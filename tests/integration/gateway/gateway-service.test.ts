import { afterEach, describe, expect, it } from 'vitest'
import { readFileSync, readdirSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import OpenAI from 'openai'
import type { CoreOptions } from '../../../src/core'
import { MemoryBackend } from '../../../src/core/secrets'
import type { Result } from '../../../src/shared/errors/app-error'
import { chatChunks, startFakeOpenAI, type FakeOpenAI } from '../../fixtures/fake-openai'
import { startTestCore, type TestCore, type TestCoreOptions } from '../test-core'

// The local API as a user turns it on in Settings: off by default, a key shown once, kept
// hashed, revoked at once, a LAN address only with a key, a busy port said in words.
const cores: TestCore[] = []
const fakes: FakeOpenAI[] = []

async function start(extra: TestCoreOptions = {}): Promise<TestCore> {
  const app = await startTestCore('sb-local-api-', { secrets: { backend: new MemoryBackend() }, localApi: { port: 0 }, ...extra })
  cores.push(app)
  return app
}

const ok = <T>(r: Result<T>) => {
  if (!r.ok) throw new Error(r.error.message)
  return r.value
}

afterEach(async () => {
  for (const app of cores.splice(0)) await app.close()
  for (const fake of fakes.splice(0)) await fake.close()
})

describe('Settings → Local API', () => {
  it('is off by default, starts when turned on, and a created key works until it is revoked', async () => {
    const fake = await startFakeOpenAI()
    fakes.push(fake)
    const { client, dataDir } = await start()
    ok(await client.call('providers.update', { providerId: 'openai', baseURL: fake.url }))
    ok(await client.call('providers.setKey', { providerId: 'openai', apiKey: 'sk-upstream-0123456789' }))
    const initial = ok(await client.call('localApi.status', {}))
    expect(initial).toMatchObject({ enabled: false, host: '127.0.0.1', keys: [] })
    expect(initial.url).toBeUndefined()

    const { key, secret } = ok(await client.call('localApi.createKey', { name: 'editor', spendCapUsd: 5 }))
    expect(secret).toMatch(/^sb-/)
    expect(key).toMatchObject({ name: 'editor', spentUsd: 0, calls: 0, spendCapUsd: 5 })
    expect(secret.startsWith(key.prefix)).toBe(true)
    const on = ok(await client.call('localApi.update', { enabled: true }))
    expect(on.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)

    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['hello'], { usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } }) })
    const sdk = new OpenAI({ apiKey: secret, baseURL: `${on.url}/v1`, maxRetries: 0 })
    const reply = await sdk.chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })
    expect(reply.choices[0]!.message.content).toBe('hello')
    const after = ok(await client.call('localApi.status', {}))
    expect(after.keys[0]!.calls).toBe(1)

    // Only the hash is kept: the key itself is nowhere in the data folder.
    const files = readdirSync(dataDir).filter((f) => f.endsWith('.db') || f.endsWith('-wal'))
    for (const f of files) expect(readFileSync(join(dataDir, f)).includes(Buffer.from(secret))).toBe(false)

    ok(await client.call('localApi.revokeKey', { id: key.id }))
    const refused = await sdk.chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(OpenAI.AuthenticationError)

    const off = ok(await client.call('localApi.update', { enabled: false }))
    expect(off.url).toBeUndefined()
    await expect(fetch(`${on.url}/v1/models`)).rejects.toThrow()
  })

  it('answers a web page from an added origin (with CORS) and refuses it once removed; extra host names likewise', async () => {
    const { client } = await start()
    const { secret } = ok(await client.call('localApi.createKey', { name: 'page' }))
    const on = ok(await client.call('localApi.update', { enabled: true }))
    const port = new URL(on.url!).port
    const models = (headers: Record<string, string>) => fetch(`${on.url}/v1/models`, { headers: { authorization: `Bearer ${secret}`, ...headers } })

    const page = 'http://notes.example:5173'
    expect((await models({ origin: page })).status).toBe(403)
    // Entered as a user might (a trailing slash, capitals): kept as the browser sends it.
    const added = ok(await client.call('localApi.update', { allowedOrigins: ['HTTP://Notes.Example:5173/'] }))
    expect(added.allowedOrigins).toEqual([page])
    const allowed = await models({ origin: page })
    expect(allowed.status).toBe(200)
    expect(allowed.headers.get('access-control-allow-origin')).toBe(page)
    const preflight = await fetch(`${on.url}/v1/chat/completions`, { method: 'OPTIONS', headers: { origin: page, 'access-control-request-method': 'POST' } })
    expect(preflight.status).toBe(204)
    expect((await models({ origin: 'http://other.example' })).status).toBe(403)
    ok(await client.call('localApi.update', { allowedOrigins: [] }))
    const removed = await models({ origin: page })
    expect(removed.status).toBe(403)
    expect(((await removed.json()) as { error: { message: string } }).error.message).toMatch(/Allowed origins/)

    // Host names: fetch cannot set Host, so the request is made with node:http.
    const withHost = (host: string) =>
      new Promise<number>((done, fail) => {
        import('node:http').then(({ request }) => {
          const req = request({ host: '127.0.0.1', port, path: '/v1/models', headers: { host: `${host}:${port}`, authorization: `Bearer ${secret}` } }, (res) => {
            res.resume()
            done(res.statusCode ?? 0)
          })
          req.on('error', fail)
          req.end()
        }, fail)
      })
    expect(await withHost('mybox.local')).toBe(403)
    expect(ok(await client.call('localApi.update', { allowedHosts: ['MyBox.local.'] })).allowedHosts).toEqual(['mybox.local'])
    expect(await withHost('mybox.local')).toBe(200)
    ok(await client.call('localApi.update', { allowedHosts: [] }))
    expect(await withHost('mybox.local')).toBe(403)
  })

  it('refuses an origin with a path and a host name with a port or a scheme, saying what is expected', async () => {
    const { client } = await start()
    const path = await client.call('localApi.update', { allowedOrigins: ['https://app.example.com/chat'] })
    expect(path).toMatchObject({ ok: false, error: { errorType: 'ValidationError' } })
    expect(!path.ok && path.error.message).toMatch(/without a path/)
    const port = await client.call('localApi.update', { allowedHosts: ['mybox.local:8080'] })
    expect(!port.ok && port.error.message).toMatch(/without a port/)
    const scheme = await client.call('localApi.update', { allowedHosts: ['http://mybox.local'] })
    expect(!scheme.ok && scheme.error.message).toMatch(/without http/)
    expect(ok(await client.call('localApi.status', {}))).toMatchObject({ allowedOrigins: [], allowedHosts: [] })
  })

  it('listens beyond loopback only once a key exists', async () => {
    const { client } = await start()
    // A documentation address (TEST-NET-1): never bound here, so the test opens nothing to the network.
    const refused = await client.call('localApi.update', { enabled: true, host: '192.0.2.1' })
    expect(refused).toMatchObject({ ok: false, error: { errorType: 'ValidationError' } })
    expect(!refused.ok && refused.error.message).toContain('Create a key')
    ok(await client.call('localApi.createKey', { name: 'lan' }))
    const on = ok(await client.call('localApi.update', { enabled: true, host: '192.0.2.1' }))
    // Accepted now; this machine has no such address, which the status says plainly.
    expect(on).toMatchObject({ enabled: true, host: '192.0.2.1' })
    expect(on.error).toContain('no address 192.0.2.1')
  })

  it('a port in use is said in words, and the app keeps running', async () => {
    const blocker = createServer()
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
    const port = (blocker.address() as { port: number }).port
    try {
      const { client } = await start({ localApi: { port } })
      const status = ok(await client.call('localApi.update', { enabled: true }))
      expect(status.url).toBeUndefined()
      expect(status.error).toContain(`Port ${port} is in use`)
      expect(ok(await client.call('localApi.status', {})).enabled).toBe(true)
    } finally {
      blocker.close()
    }
  })

  it('a remote browser-mode client may read it but not change it', async () => {
    const { client } = await start({ mode: 'browser', access: { password: 'a long access password' } as CoreOptions['access'] })
    const status = ok(await client.call('localApi.status', {}))
    expect(status.canChange).toBe(false)
    for (const call of [client.call('localApi.update', { enabled: true }), client.call('localApi.createKey', { name: 'x' })]) {
      const result = await call
      expect(result).toMatchObject({ ok: false, error: { status: 403 } })
    }
  })
})
