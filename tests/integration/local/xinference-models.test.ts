import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCore, type Core } from '../../../src/core'
import { createInProcessClient } from '../../../src/core/bridge/in-process'
import type { BridgeClient } from '../../../src/shared/bridge/client'
import type { Contract } from '../../../src/shared/bridge/contract'
import type { Result } from '../../../src/shared/errors/app-error'
import { startFakeXinference, type FakeXinference } from '../../fixtures/fake-xinference'

// Xinference gets "Fetch model list" like the other local servers, read in its own wire format:
// every launched model is listed with its model_type, and only LLMs that chat are chat models.
let xinference: FakeXinference
let core: Core
let client: BridgeClient<Contract>
let dataDir: string

const value = <T>(result: Result<T>): T => {
  if (!result.ok) throw new Error(`${result.error.errorType}: ${result.error.message}`)
  return result.value
}

beforeAll(async () => {
  xinference = await startFakeXinference()
  dataDir = mkdtempSync(join(tmpdir(), 'sb-xinference-'))
  core = createCore({ dataDir, mode: 'test' })
  await core.context.init.start()
  client = createInProcessClient(core.router).client
  expect(value(await client.call('local.setBaseUrl', { kind: 'xinference', baseUrl: xinference.url }))).toMatchObject({ running: true, modelCount: 9 })
})

afterAll(async () => {
  await core.close()
  await xinference.close()
  rmSync(dataDir, { recursive: true, force: true })
})

const CHAT = ['qwen2.5-instruct', 'qwen2-vl-instruct', 'deepseek-r1-distill-qwen']

describe('Xinference model list', () => {
  it('offers Fetch model list, like the other local servers', async () => {
    const { providers } = value(await client.call('providers.list', {}))
    for (const id of ['ollama', 'lmstudio', 'vllm', 'xinference']) expect([id, providers.find((p) => p.id === id)?.canFetchModels]).toEqual([id, true])
  })

  it('fetches /v1/models and types each model by its model_type: chat only for LLMs that chat', async () => {
    const fetched = value(await client.call('providers.fetchModels', { providerId: 'xinference' }))
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
    const group = value(await client.call('providers.list', {})).picker.find((g) => g.provider.id === 'xinference')!
    expect(group.models.map((m) => m.id)).toEqual(CHAT)
  })
})
