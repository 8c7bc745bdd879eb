import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createProviderRuntime } from '../../../src/core/runtime/registry'
import { defaultInstalled, startFakeOllama, type FakeOllama } from '../../fixtures/fake-ollama'
import { ok, startTestCore, type TestCore } from '../test-core'

// product.md §4 / providers.md §3: local servers' model lists through the common processing,
// and the picker offering what a running server has (not built-in entries it does not serve).
let ollama: FakeOllama
let lmstudio: Server
let lmstudioUrl: string
let app: TestCore
let client: TestCore['client']

beforeAll(async () => {
  const [llama] = defaultInstalled()
  ollama = await startFakeOllama({ installed: [llama!, { ...llama!, name: 'Qwen3' }] })
  // LM Studio's OpenAI-style model list, with a name that carries a parenthesised qualifier.
  lmstudio = createServer((req, res) => {
    res.writeHead(req.url === '/v1/models' ? 200 : 404, { 'content-type': 'application/json' })
    res.end(JSON.stringify(req.url === '/v1/models' ? { object: 'list', data: [{ id: 'my-local-finetune (q4)', object: 'model' }, { id: 'google/gemma-3-4b', object: 'model' }] } : { error: 'not found' }))
  })
  await new Promise<void>((r) => lmstudio.listen(0, '127.0.0.1', () => r()))
  lmstudioUrl = `http://127.0.0.1:${(lmstudio.address() as AddressInfo).port}`
  app = await startTestCore('sb-local-picker-')
  client = app.client
  ok(await client.call('local.setBaseUrl', { kind: 'ollama', baseUrl: ollama.url }))
  ok(await client.call('local.setBaseUrl', { kind: 'lmstudio', baseUrl: lmstudioUrl }))
})

afterAll(async () => {
  await app.close()
  await ollama.close()
  lmstudio.close()
})

describe('local model lists', () => {
  it("Ollama's list goes through the common processing: catalogue match by id in any case, boolean abilities, enabled per §4", async () => {
    const { models } = await createProviderRuntime('ollama', { baseURL: ollama.url }).models!()
    const qwen = models.find((m) => m.id === 'Qwen3')!
    // Matched to the built-in 'qwen3' (functionCall, disabled by default); no ability left undefined.
    expect(qwen).toMatchObject({ displayName: 'Qwen3 7B', enabled: false, functionCall: true, reasoning: false, vision: false, contextWindowTokens: 65536 })
    const llama = models.find((m) => m.id === 'llama3.2:latest')!
    expect(llama.enabled).toBe(false)
    expect(typeof llama.functionCall).toBe('boolean')
    expect(typeof llama.reasoning).toBe('boolean')
  })

  it('the picker offers every model a running local server has, and nothing it does not serve', async () => {
    const groups = ok(await client.call('providers.list', {})).picker
    const lm = groups.find((g) => g.provider.id === 'lmstudio')!
    expect(lm.models.map((m) => [m.id, m.displayName, m.enabled])).toEqual([
      ['my-local-finetune (q4)', 'my-local-finetune', true],
      ['google/gemma-3-4b', 'google/gemma-3-4b', true]
    ])
    // The built-in LM Studio entries ("Llama 3.1 8B", "Qwen2.5 14B") are not served here.
    expect(lm.models.some((m) => m.id === 'llama3.1' || m.id === 'qwen2.5-14b-instruct')).toBe(false)
    const ol = groups.find((g) => g.provider.id === 'ollama')!
    expect(ol.models.map((m) => [m.id, m.enabled]).sort()).toEqual([
      ['Qwen3', true],
      ['llama3.2:latest', true]
    ])
    // Settings lists the same models, ticked; unticking one takes it out of the picker.
    ok(await client.call('providers.setModelEnabled', { providerId: 'lmstudio', modelId: 'google/gemma-3-4b', enabled: false }))
    const after = ok(await client.call('providers.models', { providerId: 'lmstudio' }))
    expect(after.map((m) => [m.id, m.enabled])).toEqual([
      ['my-local-finetune (q4)', true],
      ['google/gemma-3-4b', false]
    ])
  })
})
