import { afterEach, describe, expect, it } from 'vitest'
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import OpenAI from 'openai'
import { createCore, type Core, type CoreOptions } from '../../../src/core'
import { createInProcessClient } from '../../../src/core/bridge/in-process'
import { MemoryBackend } from '../../../src/core/secrets'
import type { BridgeClient } from '../../../src/shared/bridge/client'
import type { Contract } from '../../../src/shared/bridge/contract'
import type { Result } from '../../../src/shared/errors/app-error'
import { chatChunks, startFakeOpenAI, type FakeOpenAI } from '../../fixtures/fake-openai'

// The local API as a user turns it on in Settings: off by default, a key shown once, kept
// hashed, revoked at once, a LAN address only with a key, a busy port said in words.
const cores: Core[] = []
const fakes: FakeOpenAI[] = []

async function start(extra: Partial<CoreOptions> = {}): Promise<{ core: Core; client: BridgeClient<Contract>; dataDir: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sb-local-api-'))
  const core = createCore({ dataDir, mode: 'test', secrets: { backend: new MemoryBackend() }, localApi: { port: 0 }, ...extra })
  cores.push(core)
  await core.context.init.start()
  return { core, client: createInProcessClient(core.router).client, dataDir }
}

const ok = <T>(r: Result<T>) => {
  if (!r.ok) throw new Error(r.error.message)
  return r.value
}

afterEach(async () => {
  for (const core of cores.splice(0)) await core.close()
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
