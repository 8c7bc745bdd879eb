import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Core } from '../../../src/core'
import { MemoryBackend } from '../../../src/core/secrets'
import type { BridgeClient } from '../../../src/shared/bridge/client'
import type { Contract } from '../../../src/shared/bridge/contract'
import { describeError, ERROR_CATALOGUE } from '../../../src/shared/errors/catalogue'
import type { Result } from '../../../src/shared/errors/app-error'
import { chatChunks, errorBody, startFakeOpenAI, type FakeOpenAI } from '../../fixtures/fake-openai'
import { startTestCore } from '../test-core'

// Settings → Test connection: the model is the user's choice, by default the first enabled
// chat model; its messages do not send someone who is in Settings to Settings.
let fake: FakeOpenAI
let core: Core
let client: BridgeClient<Contract>
const ok = <T>(r: Result<T>) => {
  if (!r.ok) throw new Error(r.error.message)
  return r.value
}

beforeAll(async () => {
  fake = await startFakeOpenAI()
  const app = await startTestCore('sb-test-conn-', { secrets: { backend: new MemoryBackend() } })
  core = app.core
  client = app.client
  ok(await client.call('providers.update', { providerId: 'openai', baseURL: fake.url }))
  ok(await client.call('providers.setKey', { providerId: 'openai', apiKey: 'sk-test-connection-0123456789' }))
})
afterAll(async () => {
  await core.close()
  await fake.close()
})

const testedModel = () => (fake.requestsTo('/chat/completions').at(-1)!.body as { model: string }).model

describe('Test connection', () => {
  it('tests with the first enabled chat model by default, and with the model the user picks', async () => {
    // The catalogue's check model for OpenAI is gpt-5.2; switch it off so the default is visibly another.
    ok(await client.call('providers.setModelEnabled', { providerId: 'openai', modelId: 'gpt-5.2', enabled: false }))
    const firstEnabled = ok(await client.call('providers.models', { providerId: 'openai' })).find((m) => m.type === 'chat' && m.enabled)!.id
    expect(firstEnabled).not.toBe('gpt-5.2')
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['h']) })
    expect(ok(await client.call('providers.test', { providerId: 'openai' })).modelId).toBe(firstEnabled)
    expect(testedModel()).toBe(firstEnabled)

    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['h']) })
    expect(ok(await client.call('providers.test', { providerId: 'openai', modelId: 'gpt-4o-mini' })).modelId).toBe('gpt-4o-mini')
    expect(testedModel()).toBe('gpt-4o-mini')
  })

  it('a rejected key says to fix the key, not to go to Settings', async () => {
    fake.enqueue('/chat/completions', { kind: 'json', status: 401, body: errorBody('Incorrect API key provided', 'invalid_api_key') })
    const r = await client.call('providers.test', { providerId: 'openai', modelId: 'gpt-4o-mini' })
    expect(r.ok).toBe(false)
    if (r.ok) return
    expect(r.error.errorType).toBe('InvalidProviderAPIKey')
    for (const locale of ['en', 'zh-CN'] as const) {
      const text = describeError(r.error.errorType, locale, 'settings')
      expect(text.fix).not.toMatch(/Settings|设置中/)
    }
  })

  it('no catalogue fix shown in Settings sends the user to Settings', () => {
    for (const type of Object.keys(ERROR_CATALOGUE)) {
      expect(describeError(type, 'en', 'settings').fix, type).not.toMatch(/\bin Settings\b/)
      expect(describeError(type, 'zh-CN', 'settings').fix, type).not.toMatch(/在设置中/)
    }
  })
})
