import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MemoryBackend } from '../../../src/core/secrets'
import type { BridgeClient } from '../../../src/shared/bridge/client'
import type { Contract } from '../../../src/shared/bridge/contract'
import type { Message } from '../../../src/shared/data/message'
import type { Result } from '../../../src/shared/errors/app-error'
import { startFakeOllama, type FakeOllama } from '../../fixtures/fake-ollama'
import { readyTestCore, type TestCore } from '../test-core'

// Issue 15: a local model's context length. By default num_ctx is sized to the conversation
// within the model's own window from /api/show; the user's per-model setting wins; both are
// held to 2048..128000 (providers.md). Real core, real Ollama SDK, the fake server's wire.
let fake: FakeOllama
let app: TestCore
let client: BridgeClient<Contract>

const ok = <T>(r: Result<T>): T => {
  if (!r.ok) throw new Error(`${r.error.errorType}: ${r.error.message}`)
  return r.value
}

beforeAll(async () => {
  fake = await startFakeOllama()
  app = await readyTestCore('sb-ollama-ctx-', { secrets: { backend: new MemoryBackend() } })
  client = app.client
  ok(await client.call('local.setBaseUrl', { kind: 'ollama', baseUrl: fake.url }))
})

afterAll(async () => {
  await app.close()
  await fake.close()
})

function send(text: string): Promise<Message> {
  return new Promise((resolve, reject) => {
    client.stream('chat.send', { text, providerId: 'ollama', modelId: 'qwen3:0.6b' }, { onEnd: (r) => (r.ok ? resolve(r.value) : reject(new Error(r.error.message))) })
  })
}
const numCtx = () => (fake.requests.filter((r) => r.path === '/api/chat').at(-1)!.body as { options: { num_ctx: number } }).options.num_ctx

describe('Ollama context length per model', () => {
  it('sizes num_ctx to the conversation within the model window, then follows the user’s setting, clamped', async () => {
    expect((await send('hi')).status).toBe('complete')
    expect(numCtx()).toBe(4096)
    // 100,000 characters ≈ 25,000 tokens: more than the default, within qwen3:0.6b's 40,960.
    await send('z'.repeat(100_000))
    expect(numCtx()).toBeGreaterThan(25_000)
    expect(numCtx()).toBeLessThanOrEqual(40_960)

    ok(await client.call('data.settings.set', { patch: { contextLengths: { 'ollama/qwen3:0.6b': 16_384 } } }))
    await send('hi')
    expect(numCtx()).toBe(16_384)
    ok(await client.call('data.settings.set', { patch: { contextLengths: { 'ollama/qwen3:0.6b': 1_000_000 } } }))
    await send('hi')
    expect(numCtx()).toBe(128_000)
    ok(await client.call('data.settings.set', { patch: { contextLengths: { 'ollama/qwen3:0.6b': 100 } } }))
    await send('hi')
    expect(numCtx()).toBe(2048)
  })
})

describe('Ollama reply speed', () => {
  it('is Ollama’s own: eval_count over eval_duration from its last line, not the arrival of chunks', async () => {
    const reply = await send('speed please')
    // The fake's last line: eval_count 6, eval_duration 583 ms → 10.29 tok/s (chunks arrive in a burst).
    expect(reply.speed?.tps).toBeCloseTo(6 / 0.583, 2)
  })
})

