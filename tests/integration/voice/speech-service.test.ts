import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { mkdtempSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Core } from '../../../src/core'
import { MemoryBackend } from '../../../src/core/secrets'
import type { BridgeClient } from '../../../src/shared/bridge/client'
import type { Contract } from '../../../src/shared/bridge/contract'
import type { Result } from '../../../src/shared/errors/app-error'
import { errorBody, startFakeOpenAI, type FakeOpenAI } from '../../fixtures/fake-openai'
import { readyTestCore } from '../test-core'

// Read aloud and dictation through the bridge: the real core and openai SDK against a fake
// server that returns binary MP3 and parses multipart uploads.
const KEY = 'sk-test-voice-0123456789abcdef'
let fake: FakeOpenAI
let core: Core
let client: BridgeClient<Contract>
let dataDir: string

const ok = <T>(r: Result<T>): T => {
  if (!r.ok) throw new Error(`${r.error.errorType}: ${r.error.message}`)
  return r.value
}

beforeAll(async () => {
  fake = await startFakeOpenAI()
  dataDir = mkdtempSync(join(tmpdir(), 'sb-voice-'))
  const app = await readyTestCore('sb-voice-', { dataDir, secrets: { backend: new MemoryBackend() } })
  core = app.core
  client = app.client
  ok(await client.call('providers.update', { providerId: 'openai', baseURL: fake.url }))
  ok(await client.call('providers.setKey', { providerId: 'openai', apiKey: KEY }))
})

afterAll(async () => {
  await core.close()
  await fake.close()
})

beforeEach(() => fake.reset())

describe('voice settings', () => {
  it('defaults to the first available provider’s TTS and STT models, and honours a stored choice', async () => {
    const settings = ok(await client.call('speech.settings', {}))
    expect(settings.tts?.providerId).toBe('openai')
    expect(ok(await client.call('speech.models', {})).some((m) => m.type === 'tts' && m.modelId === settings.tts?.modelId)).toBe(true)
    expect(settings.stt?.providerId).toBe('openai')
    ok(await client.call('data.settings.set', { patch: { voice: { tts: { providerId: 'openai', modelId: 'gpt-4o-mini-tts', voice: 'verse' } } } }))
    const chosen = ok(await client.call('speech.settings', {}))
    expect(chosen.tts).toEqual({ providerId: 'openai', modelId: 'gpt-4o-mini-tts', voice: 'verse' })
    expect(chosen.stt?.modelId).toBe(settings.stt?.modelId)
  })
})

describe('speech.speak', () => {
  it('speaks a message with the chosen model and voice, then serves it from the per-message cache', async () => {
    const audio = ok(await client.call('speech.speak', { text: 'Hello **world**. See `x`.', messageId: 'msg-1' }))
    expect(audio.cached).toBe(false)
    expect(audio.mimeType).toBe('audio/mpeg')
    expect([...Buffer.from(audio.audioBase64, 'base64').subarray(0, 3)]).toEqual([0x49, 0x44, 0x33])
    const [request] = fake.requestsTo('/audio/speech')
    expect(request?.body).toMatchObject({ model: 'gpt-4o-mini-tts', voice: 'verse', input: 'Hello world. See x.', response_format: 'mp3' })
    expect(readdirSync(join(dataDir, 'speech')).some((f) => f.startsWith('msg-1-'))).toBe(true)

    const again = ok(await client.call('speech.speak', { text: 'Hello **world**. See `x`.', messageId: 'msg-1' }))
    expect(again.cached).toBe(true)
    expect(again.audioBase64).toBe(audio.audioBase64)
    expect(fake.requestsTo('/audio/speech')).toHaveLength(1)
    // An edited message is spoken anew.
    ok(await client.call('speech.speak', { text: 'Hello again.', messageId: 'msg-1' }))
    expect(fake.requestsTo('/audio/speech')).toHaveLength(2)
  })

  it('splits a long answer into requests within the 2,000-token limit and joins the audio in order', async () => {
    let n = 0
    fake.setDefault('/audio/speech', () => ({ kind: 'binary', body: new Uint8Array([0xff, 0xf3, n++]), contentType: 'audio/mpeg' }))
    const text = Array.from({ length: 700 }, (_, i) => `This is sentence ${i} of a long answer.`).join(' ')
    const audio = ok(await client.call('speech.speak', { text, providerId: 'openai', modelId: 'gpt-4o-mini-tts', voice: 'alloy' }))
    const requests = fake.requestsTo('/audio/speech')
    expect(audio.parts).toBe(requests.length)
    expect(requests.length).toBeGreaterThan(1)
    for (const r of requests) expect(((r.body as { input: string }).input.length + 3) / 4).toBeLessThanOrEqual(2000)
    expect(requests.map((r) => (r.body as { input: string }).input).join(' ')).toBe(text)
    expect([...Buffer.from(audio.audioBase64, 'base64')]).toEqual(requests.flatMap((_, i) => [0xff, 0xf3, i]))
  })

  it('reports a provider failure with the speech service text', async () => {
    fake.setDefault('/audio/speech', { kind: 'json', status: 400, body: errorBody('voice is not supported', 'invalid_voice') })
    const result = await client.call('speech.speak', { text: 'Say this.', providerId: 'openai', modelId: 'tts-1', voice: 'nobody' })
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.error.errorType).toBe('SpeechServiceError')
    expect(result.error.message).toMatch(/^Speech-to-text and text-to-speech service request failed: .*voice is not supported/)
    expect(JSON.stringify(result.error)).not.toContain(KEY)
  })
})

describe('speech.transcribe', () => {
  it('uploads the recording as multipart with the chosen model and returns the text', async () => {
    fake.setDefault('/audio/transcriptions', { kind: 'json', body: { text: '  dictated words \n' } })
    const recording = Buffer.from('fake webm bytes').toString('base64')
    const result = ok(await client.call('speech.transcribe', { audioBase64: recording, mimeType: 'audio/webm;codecs=opus' }))
    expect(result.text).toBe('dictated words')
    const [request] = fake.requestsTo('/audio/transcriptions')
    expect(request?.headers['content-type']).toMatch(/^multipart\/form-data/)
    const raw = request?.raw.toString('latin1') ?? ''
    expect(raw).toContain('filename="dictation.webm"')
    expect(raw).toContain('fake webm bytes')
    expect(raw).toMatch(/name="model"\r\n\r\n(whisper-1|gpt-4o[\w-]*transcribe)/)
  })

  it('reports a failed transcription with the speech service text', async () => {
    fake.setDefault('/audio/transcriptions', { kind: 'json', status: 500, body: errorBody('decoder crashed', 'server_error', 'server_error') })
    const result = await client.call('speech.transcribe', { audioBase64: Buffer.from('x').toString('base64'), mimeType: 'audio/webm', providerId: 'openai', modelId: 'whisper-1' })
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.error).toMatchObject({ errorType: 'SpeechServiceError', provider: 'openai' })
  })
})
