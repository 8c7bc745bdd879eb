import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MemoryBackend } from '../../../src/core/secrets'
import type { BridgeClient } from '../../../src/shared/bridge/client'
import type { Contract } from '../../../src/shared/bridge/contract'
import { startTestCore, type TestCore } from '../test-core'

let app: TestCore
let client: BridgeClient<Contract>

beforeAll(async () => {
  app = await startTestCore('sb-settings-', { secrets: { backend: new MemoryBackend() } })
  client = app.client
})
afterAll(() => app.close())

describe('typed app settings', () => {
  it('round-trips voice and title model in their shapes; null puts a key back to its default', async () => {
    const voice = { tts: { providerId: 'openai', modelId: 'tts-1', voice: 'nova' }, stt: { providerId: 'openai', modelId: 'whisper-1' } }
    const set = await client.call('data.settings.set', { patch: { voice, titleModel: { providerId: 'openai', modelId: 'gpt-4o-mini' } } })
    expect(set).toEqual({ ok: true, value: { voice, titleModel: { providerId: 'openai', modelId: 'gpt-4o-mini' } } })
    expect(await client.call('speech.settings', {})).toEqual({ ok: true, value: voice })
    const reset = await client.call('data.settings.set', { patch: { titleModel: null } })
    expect(reset).toEqual({ ok: true, value: { voice } })
  })

  it('refuses keys it does not hold and values in the wrong shape, naming them', async () => {
    const unknown = await client.call('data.settings.set', { patch: { sceneModel: 'x' } } as never)
    expect(unknown).toMatchObject({ ok: false, error: { errorType: 'ValidationError', message: expect.stringMatching(/no "sceneModel".*voice, titleModel/) } })
    const shape = await client.call('data.settings.set', { patch: { titleModel: { providerId: 'openai' } } } as never)
    expect(shape).toMatchObject({ ok: false, error: { errorType: 'ValidationError', message: expect.stringMatching(/titleModel/) } })
  })

  it('a stored value in another shape (an older version, a hand edit) reads as not set instead of reaching the app', async () => {
    // Written straight into the table, the way an older build or a hand edit would leave it.
    app.core.services().store.settings.set({ voice: { tts: 'nova', stt: 'whisper' }, titleModel: 'gpt-4o-mini', theme: 'dark' })
    expect(await client.call('data.settings.get', {})).toEqual({ ok: true, value: {} })
    const speech = await client.call('speech.settings', {})
    if (!speech.ok) throw new Error(speech.error.message)
    expect(speech.value.tts === undefined || typeof speech.value.tts === 'object').toBe(true)
    expect(JSON.stringify(speech.value)).not.toContain('nova')
  })
})
