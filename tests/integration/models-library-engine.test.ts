import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Core } from '../../src/core'
import { MemoryBackend } from '../../src/core/secrets'
import type { BridgeClient } from '../../src/shared/bridge/client'
import type { Contract } from '../../src/shared/bridge/contract'
import { messageText, type Message } from '../../src/shared/data/message'
import type { Result } from '../../src/shared/errors/app-error'
import { startFakeHfHub, type FakeHub } from '../fixtures/fake-hf-hub/server'
import { encodeGguf } from '../fixtures/gguf/gguf-writer'
import { tinyLlamaGguf } from '../fixtures/gguf/tiny-llama'
import { readyTestCore } from './test-core'

// Find, download (through a dropped connection), then chat with the model through the
// built-in engine, all in one app: the library's download is a model the engine knows.
let dir: string
let hub: FakeHub
let core: Core
let client: BridgeClient<Contract>
const ok = <T>(r: Result<T>): T => {
  if (!r.ok) throw new Error(`${r.error.errorType}: ${r.error.message}`)
  return r.value
}

beforeAll(async () => {
  hub = await startFakeHfHub([{ id: 'acme/tiny-GGUF', files: [{ path: 'tiny-Q8_0.gguf', content: encodeGguf(tinyLlamaGguf({ seed: 9 })) }] }], { faults: { dropAt: [0.5] } })
  dir = mkdtempSync(join(tmpdir(), 'sb-lib-engine-'))
  const app = await readyTestCore('sb-lib-engine-', { dataDir: join(dir, 'data'), secrets: { backend: new MemoryBackend() } })
  core = app.core
  client = app.client
}, 60_000)

afterAll(async () => {
  await core.close()
  await hub.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('a model from the library, then a chat with it', () => {
  it('downloads from the hub and the built-in engine loads it and replies', async () => {
    ok(await client.call('models.settings.set', { hubEndpoint: hub.url }))
    const started = ok(await client.call('models.download.start', { ref: 'hf:acme/tiny-GGUF' }))
    const done = await core.services().modelsLibrary.library.downloads.wait(started.id)
    expect(done.phase, done.error?.message).toBe('success')
    const status = ok(await client.call('engine.status', {}))
    const model = status.models.find((m) => m.path === done.path)
    expect(model, JSON.stringify(status.models)).toBeDefined()
    const sidebar = ok(await client.call('chat.sidebar', {}))
    ok(await client.call('data.agents.update', { id: sidebar.defaultAgentId, patch: { providerId: 'builtin', modelId: model!.id, parameters: { maxOutputTokens: 12, temperature: 0 } } }))
    const reply = ok(
      await new Promise<Result<Message>>((resolve) => {
        client.stream('chat.send', { text: 'Hello' } as never, { onEvent: () => undefined, onEnd: resolve })
      })
    )
    expect(messageText(reply.content).length).toBeGreaterThan(0)
    expect(reply.usage?.totalOutputTokens).toBe(12)
  }, 120_000)
})
