import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Core } from '../../../src/core'
import { MemoryBackend } from '../../../src/core/secrets'
import type { BridgeClient } from '../../../src/shared/bridge/client'
import type { Contract } from '../../../src/shared/bridge/contract'
import type { Message } from '../../../src/shared/data/message'
import type { Result } from '../../../src/shared/errors/app-error'
import { writeTinyLlamaGguf } from '../../fixtures/gguf/tiny-llama'
import { readyTestCore } from '../test-core'

// A model with a vision projector (mmproj) beside it. node-llama-cpp 3.21.1 takes text only (its
// user message is `{ type: 'user', text: string }` and its addon binds no mtmd/clip), so the
// engine cannot hand an image to the projector: the page says the projector is unused, and an
// image in chat is refused with that reason instead of being dropped silently.
let dir: string
let core: Core
let client: BridgeClient<Contract>
const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sb-engine-vision-'))
  const dataDir = join(dir, 'data')
  mkdirSync(join(dataDir, 'models', 'seeing'), { recursive: true })
  writeTinyLlamaGguf(join(dataDir, 'models', 'seeing', 'seeing.gguf'))
  writeTinyLlamaGguf(join(dataDir, 'models', 'seeing', 'mmproj-seeing-f16.gguf'), { seed: 9 })
  const app = await readyTestCore('sb-engine-vision-', { dataDir, secrets: { backend: new MemoryBackend() } })
  core = app.core
  client = app.client
}, 60_000)

afterAll(async () => {
  await core.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('a model with a vision projector in the built-in engine', () => {
  it('is listed with its projector, and the projector is not offered as a model', async () => {
    const status = await client.call('engine.status', {})
    if (!status.ok) throw new Error(status.error.message)
    const ids = status.value.models.map((m) => m.id)
    expect(ids.some((id) => id.includes('mmproj'))).toBe(false)
    const seeing = status.value.models.find((m) => m.id.endsWith('seeing'))
    expect(seeing).toMatchObject({ projector: true })
  })

  it('refuses an image in chat with the reason (the engine reads text only), never dropping it silently', async () => {
    const status = await client.call('engine.status', {})
    if (!status.ok) throw new Error(status.error.message)
    const model = status.value.models.find((m) => m.id.endsWith('seeing'))!.id
    const result = await new Promise<Result<Message>>((resolve) => {
      client.stream('chat.send', { text: 'What is in this picture?', images: [{ dataUrl: PNG }], providerId: 'builtin', modelId: model } as never, { onEnd: resolve, onRefused: (error) => resolve({ ok: false, error }) })
    })
    const reply = result.ok ? result.value : undefined
    const error = result.ok ? reply?.error : result.error
    expect(error?.errorType).toBe('CapabilityNotSupported')
    expect(error?.message).toMatch(/built-in engine reads text only.*node-llama-cpp 3\.21\.1.*vision projector/)
  }, 60_000)

  it.todo('hands an image to the model\'s vision projector, because node-llama-cpp 3.21.1 has no image input (text-only ChatUserMessage, no mtmd binding in its addon); its multimodal API is planned for v4 (withcatai/node-llama-cpp#88)')
})
