import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Core } from '../../../src/core'
import type { KeyringBackend } from '../../../src/core/secrets'
import type { BridgeClient } from '../../../src/shared/bridge/client'
import type { Contract } from '../../../src/shared/bridge/contract'
import type { Message } from '../../../src/shared/data/message'
import type { Result } from '../../../src/shared/errors/app-error'
import { chatChunks, startFakeOpenAI, type FakeOpenAI } from '../../fixtures/fake-openai'
import { startTestCore } from '../test-core'

// Browser mode on a machine without a keychain: keys from <PROVIDER>_API_KEY as the CLI reads
// them, and every provider summary carries why typed keys will not last.
const KEY = 'sk-from-the-environment-7788'
const noKeychain: KeyringBackend = {
  get: () => Promise.reject(Object.assign(new Error('org.freedesktop.DBus.Error.ServiceUnknown'), { code: 'GenericFailure' })),
  set: () => Promise.reject(new Error('no')),
  delete: () => Promise.reject(new Error('no'))
}
let fake: FakeOpenAI
let core: Core
let client: BridgeClient<Contract>
const ok = <T>(r: Result<T>): T => {
  if (!r.ok) throw new Error(`${r.error.errorType}: ${r.error.message}`)
  return r.value
}

beforeAll(async () => {
  fake = await startFakeOpenAI()
  const dataDir = mkdtempSync(join(tmpdir(), 'sb-envkeys-'))
  const app = await startTestCore('sb-envkeys-', { dataDir, mode: 'browser', keyEnv: { OPENAI_API_KEY: KEY }, secrets: { backend: noKeychain, keyFile: { path: join(dataDir, 'keys.enc') } } })
  core = app.core
  client = app.client
})
afterAll(async () => {
  await core.close()
  await fake.close()
})

describe('keys without a keychain', () => {
  it('OPENAI_API_KEY makes OpenAI ready, says where the key comes from and is used for chat', async () => {
    const list = ok(await client.call('providers.list', {}))
    const openai = list.providers.find((p) => p.id === 'openai')!
    expect(openai).toMatchObject({ hasKey: true, last4: '7788', keyEnv: 'OPENAI_API_KEY', available: true })
    expect(JSON.stringify(list)).not.toContain(KEY)
    expect(list.picker.some((g) => g.provider.id === 'openai')).toBe(true)

    ok(await client.call('providers.update', { providerId: 'openai', baseURL: fake.url }))
    const sidebar = ok(await client.call('chat.sidebar', {}))
    ok(await client.call('data.agents.update', { id: sidebar.defaultAgentId, patch: { providerId: 'openai', modelId: 'gpt-4o-mini' } }))
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['from env']) })
    const reply = await new Promise<Result<Message>>((resolve) => client.stream('chat.send', { text: 'hi' } as never, { onEvent: () => undefined, onEnd: resolve }))
    expect(ok(reply).status).toBe('complete')
    expect(fake.requestsTo('/chat/completions')[0]!.headers.authorization).toBe(`Bearer ${KEY}`)
  })

  it('every summary says why typed keys are not kept, and how to keep them', async () => {
    const anthropic = ok(await client.call('providers.list', {})).providers.find((p) => p.id === 'anthropic')!
    expect(anthropic.keyPersistent).toBe(false)
    expect(anthropic.keyMemoryReason).toMatch(/SWITCHBOARD_KEY_PASSPHRASE/)
  })
})
