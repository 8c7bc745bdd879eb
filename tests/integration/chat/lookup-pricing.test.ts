import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Core } from '../../../src/core'
import { MemoryBackend } from '../../../src/core/secrets'
import type { BridgeClient } from '../../../src/shared/bridge/client'
import type { Contract } from '../../../src/shared/bridge/contract'
import type { Message } from '../../../src/shared/data/message'
import type { Result } from '../../../src/shared/errors/app-error'
import { chatChunks, startFakeOpenAI, type FakeOpenAI } from '../../fixtures/fake-openai'
import { startTestCore } from '../test-core'

// Lookup-priced units through the real chat path: before the fix every one of them cost 0
// (Claude cache writes, Qwen Plus output), because no lookup parameter was ever passed.
let fake: FakeOpenAI
let core: Core
let client: BridgeClient<Contract>
let agentId: string

const ok = <T>(r: Result<T>) => {
  if (!r.ok) throw new Error(r.error.message)
  return r.value
}

beforeAll(async () => {
  fake = await startFakeOpenAI()
  const app = await startTestCore('sb-lookup-', { secrets: { backend: new MemoryBackend() } })
  core = app.core
  client = app.client
  ok(await client.call('providers.update', { providerId: 'qwen', baseURL: fake.url }))
  ok(await client.call('providers.setKey', { providerId: 'qwen', apiKey: 'sk-qwen-test-0123456789' }))
  agentId = ok(await client.call('chat.sidebar', {})).defaultAgentId
})
afterAll(async () => {
  await core.close()
  await fake.close()
})

function send(text: string): Promise<Message> {
  return new Promise((resolve, reject) => {
    client.stream('chat.send', { text } as never, {
      onEvent: () => {},
      onEnd: (r: Result<Message>) => (r.ok ? resolve(r.value) : reject(new Error(r.error.message)))
    })
  })
}

describe('chat cost of lookup-priced units', () => {
  it('Qwen Plus: output priced at 2 CNY/M without thinking and 8 CNY/M with it', async () => {
    const usage = { prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500 }
    ok(await client.call('data.agents.update', { id: agentId, patch: { providerId: 'qwen', modelId: 'qwen-plus', parameters: {} } }))
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['plain'], { model: 'qwen-plus', usage }) })
    const plain = await send('hi')
    expect(plain.cost?.currency).toBe('CNY')
    expect(plain.cost?.items?.find((i) => i.name === 'textOutput')?.rate).toBe(2)
    expect(plain.cost?.total).toBeCloseTo(0.0008 + 0.001, 10)

    ok(await client.call('data.agents.update', { id: agentId, patch: { parameters: { thinkingBudget: 1024 } } }))
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['thought'], { model: 'qwen-plus', usage }) })
    const thinking = await send('think')
    const sent = fake.requestsTo('/chat/completions').at(-1)!.body as { enable_thinking?: boolean }
    expect(sent.enable_thinking).toBe(true)
    expect(thinking.cost?.items?.find((i) => i.name === 'textOutput')?.rate).toBe(8)
    expect(thinking.cost?.total).toBeCloseTo(0.0008 + 0.004, 10)
    // The usage event carries the charged USD too, not the thinking-less price.
    expect(thinking.usage?.cost).toBeGreaterThan(plain.usage?.cost ?? 0)
  })

  it('Claude: a cache write is priced at its 5-minute rate next to the cache read', async () => {
    const usage = { inputCacheMissTokens: 1000, inputCachedTokens: 2000, inputWriteCacheTokens: 4000, totalInputTokens: 7000, outputTextTokens: 500, totalOutputTokens: 500 }
    const cost = await core.services().providers.price('anthropic', 'claude-sonnet-4-6', usage)
    expect(cost?.items?.find((i) => i.name === 'textInput_cacheWrite')).toMatchObject({ units: 4000, rate: 3.75 })
    expect(cost?.items?.find((i) => i.name === 'textInput_cacheRead')).toMatchObject({ units: 2000, rate: 0.3 })
    expect(cost?.total).toBeCloseTo(0.003 + 0.0006 + 0.015 + 0.0075, 10)
  })
})
