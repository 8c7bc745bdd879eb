import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MemoryBackend, napiKeyringBackend, type KeyringBackend } from '../../../src/core/secrets'
import type { BridgeClient } from '../../../src/shared/bridge/client'
import type { Contract } from '../../../src/shared/bridge/contract'
import type { ProviderList } from '../../../src/shared/bridge/procedures/providers'
import type { Result } from '../../../src/shared/errors/app-error'
import { listProviderCards } from '../../../src/shared/catalogue/loader'
import { chatChunks, startFakeOpenAI, type FakeOpenAI } from '../../fixtures/fake-openai'
import { readyTestCore, type TestCore } from '../test-core'

// Every keychain read is an OS round trip (D-Bus on Linux). This counts the reads that reach
// the real keychain backend (gnome-keyring under `npm test`; the memory backend where no
// keyring session runs) while Settings opens and while a reply streams.
const SERVICE = `switchboard-test-${randomBytes(4).toString('hex')}`
const KEY = `sk-test-${randomBytes(12).toString('hex')}`

async function realKeychain(): Promise<KeyringBackend> {
  try {
    const backend = await napiKeyringBackend(SERVICE)
    await backend.get('switchboard:probe')
    return backend
  } catch {
    return new MemoryBackend()
  }
}

let reads = 0
const written: string[] = []
let app: TestCore
let client: BridgeClient<Contract>
let fake: FakeOpenAI
let inner: KeyringBackend

const ok = <T,>(r: Result<T>): T => {
  if (!r.ok) throw new Error(`${r.error.errorType}: ${r.error.message}`)
  return r.value
}

beforeAll(async () => {
  fake = await startFakeOpenAI()
  inner = await realKeychain()
  const counting: KeyringBackend = {
    get: (account) => {
      reads++
      return inner.get(account)
    },
    set: (account, value) => {
      written.push(account)
      return inner.set(account, value)
    },
    delete: (account) => inner.delete(account)
  }
  app = await readyTestCore('sb-keyreads-', { secrets: { backend: counting } })
  client = app.client
})

afterAll(async () => {
  for (const account of new Set(written)) await inner.delete(account).catch(() => false)
  await app.close()
  await fake.close()
})

/** Keychain reads made while `work` runs. */
async function readsDuring(work: () => Promise<unknown>): Promise<number> {
  const before = reads
  await work()
  return reads - before
}

describe('keychain reads', () => {
  it('opening Settings reads each provider’s entries once; opening it again reads none', async () => {
    const cards = listProviderCards()
    const first = await readsDuring(async () => ok(await client.call('providers.list', {})))
    // One key per provider plus the extra credential fields of Bedrock (4), Vertex AI (3),
    // Cloudflare (1) and Azure (1). Before the cache: two passes (list + picker) of 1 + every field.
    expect(first).toBe(cards.length + 9)
    expect(await readsDuring(async () => ok(await client.call('providers.list', {})))).toBe(0)
    expect(await readsDuring(async () => ok(await client.call('providers.list', { type: 'image', all: true })))).toBe(0)
  })

  it('a key set or removed through providers.setKey/removeKey is seen at once, without reading the keychain again', async () => {
    ok(await client.call('providers.update', { providerId: 'openai', baseURL: fake.url }))
    ok(await client.call('providers.setKey', { providerId: 'openai', apiKey: KEY }))
    ok(await client.call('providers.setKey', { providerId: 'groq', apiKey: KEY }))
    let value: ProviderList | undefined
    const again = await readsDuring(async () => (value = ok(await client.call('providers.list', {}))))
    if (!value) throw new Error('no list')
    expect(value.providers.find((p) => p.id === 'groq')).toMatchObject({ hasKey: true, last4: KEY.slice(-4) })
    expect(value.providers.find((p) => p.id === 'openai')).toMatchObject({ hasKey: true, last4: KEY.slice(-4) })
    expect(value.picker.map((g) => g.provider.id)).toContain('openai')
    // Each setKey re-read its own provider for its answer: the list reads nothing again.
    expect(again).toBe(0)
    ok(await client.call('providers.removeKey', { providerId: 'groq' }))
    const afterDelete = ok(await client.call('providers.list', {}))
    expect(afterDelete.providers.find((p) => p.id === 'groq')).toMatchObject({ hasKey: false })
  })

  it('a reply reads the keychain not at all once the provider was read (it used to read 10 entries)', async () => {
    const sidebar = ok(await client.call('chat.sidebar', {}))
    ok(await client.call('data.agents.update', { id: sidebar.defaultAgentId, patch: { providerId: 'openai', modelId: 'gpt-4o-mini' } }))
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['Hel', 'lo'], {}) })
    const send = () =>
      new Promise<Result<unknown>>((resolve) => {
        client.stream('chat.send', { text: 'Say hello' }, { onEvent: () => undefined, onEnd: resolve })
      })
    const during = await readsDuring(async () => ok(await send()))
    expect(during).toBe(0)
    // The reply used the key from the cache: the fake server saw it.
    expect(fake.requestsTo('/chat/completions')[0]?.headers['authorization']).toBe(`Bearer ${KEY}`)
  })
})
