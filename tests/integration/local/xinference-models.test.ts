import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFakeXinference, type FakeXinference } from '../../fixtures/fake-xinference'
import { ok, startTestCore, type TestCore } from '../test-core'

// Xinference gets "Fetch model list" like the other local servers, read in its own wire format:
// every launched model is listed with its model_type, and only LLMs that chat are chat models.
let xinference: FakeXinference
let app: TestCore
let client: TestCore['client']

beforeAll(async () => {
  xinference = await startFakeXinference()
  app = await startTestCore('sb-xinference-')
  client = app.client
  expect(ok(await client.call('local.setBaseUrl', { kind: 'xinference', baseUrl: xinference.url }))).toMatchObject({ running: true, modelCount: 9 })
})

afterAll(async () => {
  await app.close()
  await xinference.close()
})

const CHAT = ['qwen2.5-instruct', 'qwen2-vl-instruct', 'deepseek-r1-distill-qwen']

describe('Xinference model list', () => {
  it('offers Fetch model list, like the other local servers', async () => {
    const { providers } = ok(await client.call('providers.list', {}))
    for (const id of ['ollama', 'lmstudio', 'vllm', 'xinference']) expect([id, providers.find((p) => p.id === id)?.canFetchModels]).toEqual([id, true])
  })

  it('fetches /v1/models and types each model by its model_type: chat only for LLMs that chat', async () => {
    const fetched = ok(await client.call('providers.fetchModels', { providerId: 'xinference' }))
    expect(xinference.requests).toContain('GET /v1/models')
    const byId = new Map(fetched.models.map((m) => [m.id, m]))
    expect(fetched.models.filter((m) => m.type === 'chat').map((m) => m.id)).toEqual(CHAT)
    expect(byId.get('qwen2.5-instruct')).toMatchObject({ contextWindowTokens: 32768, abilities: { functionCall: true, vision: false, reasoning: false }, enabled: true })
    expect(byId.get('qwen2-vl-instruct')?.abilities.vision).toBe(true)
    expect(byId.get('deepseek-r1-distill-qwen')?.abilities.reasoning).toBe(true)
    expect(byId.get('bge-m3')?.type).toBe('embedding')
    expect(byId.get('whisper-large-v3')?.type).toBe('stt')
    expect(byId.get('CosyVoice2-0.5B')?.type).toBe('tts')
    // A reranker, an image model (no image support through Xinference) and a completion-only LLM are not chat models.
    for (const id of ['bge-reranker-v2-m3', 'sd3-medium', 'gpt-2']) expect(byId.get(id)?.type ?? 'absent').not.toBe('chat')
  })

  it('the chat picker offers the LLMs that chat, and nothing else the server runs', async () => {
    const group = ok(await client.call('providers.list', {})).picker.find((g) => g.provider.id === 'xinference')!
    expect(group.models.map((m) => m.id)).toEqual(CHAT)
  })
})
