import { expect, test, type Page } from '@playwright/test'
import { crc32, deflateSync } from 'node:zlib'
import { chatChunks, errorBody, startFakeOpenAI, type FakeOpenAI, type RecordedRequest } from '../fixtures/fake-openai'
import { minimalPdf } from '../fixtures/minimal-pdf'
import { configureProvider, pickModel, snap } from './helpers'

// Issue 10 against the real app in browser mode and a fake OpenAI-compatible server with
// audio endpoints: read aloud plays, dictation (Chromium's fake microphone) inserts the
// transcription, and a PDF and an image reach the provider in the chat request body.
const KEY = 'sk-e2e-voice-files-0123456789'
const DICTATED = 'dictated words from the fake microphone'
let fake: FakeOpenAI

test.describe.configure({ mode: 'serial' })

/**
 * A 440 Hz tone as 16-bit mono PCM WAV: real audio the page can decode and play. Long enough that
 * it is still playing when the test pauses it on a loaded machine (1.5 s once ended first in CI).
 */
function toneWav(seconds = 20, rate = 8000): Uint8Array {
  const samples = Math.floor(seconds * rate)
  const data = Buffer.alloc(samples * 2)
  for (let i = 0; i < samples; i++) data.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 440 * i) / rate) * 8000), i * 2)
  const header = Buffer.alloc(44)
  header.write('RIFF', 0, 'latin1')
  header.writeUInt32LE(36 + data.length, 4)
  header.write('WAVEfmt ', 8, 'latin1')
  header.writeUInt32LE(16, 16)
  header.writeUInt16LE(1, 20)
  header.writeUInt16LE(1, 22)
  header.writeUInt32LE(rate, 24)
  header.writeUInt32LE(rate * 2, 28)
  header.writeUInt16LE(2, 32)
  header.writeUInt16LE(16, 34)
  header.write('data', 36, 'latin1')
  header.writeUInt32LE(data.length, 40)
  return Buffer.concat([header, data])
}

/** A solid-colour RGB PNG of the given size (wider than OpenAI's 2048 px, so the page scales it). */
function png(width: number, height: number): Buffer {
  const chunk = (type: string, body: Buffer) => {
    const length = Buffer.alloc(4)
    length.writeUInt32BE(body.length)
    const typed = Buffer.concat([Buffer.from(type, 'latin1'), body])
    const crc = Buffer.alloc(4)
    crc.writeUInt32BE(crc32(typed))
    return Buffer.concat([length, typed, crc])
  }
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(width, 0)
  ihdr.writeUInt32BE(height, 4)
  ihdr.set([8, 2, 0, 0, 0], 8)
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3, 0x7f)])
  const raw = Buffer.concat(Array.from({ length: height }, () => row))
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))])
}

test.beforeAll(async () => {
  fake = await startFakeOpenAI()
  fake.setDefault('/chat/completions', (req: RecordedRequest) => {
    const body = req.body as { messages: { role: string; content: unknown }[] }
    if (String(body.messages[0]?.content).startsWith('You write a title')) return { kind: 'sse', chunks: chatChunks(['Voice and files']) }
    return { kind: 'sse', chunks: chatChunks(['Here is a reply that can be read aloud. ', 'It has two sentences.']) }
  })
  fake.setDefault('/audio/speech', { kind: 'binary', body: toneWav(), contentType: 'audio/wav' })
  fake.setDefault('/audio/transcriptions', { kind: 'json', body: { text: DICTATED } })
})

test.afterAll(async () => fake.close())

async function setUp(page: Page) {
  await configureProvider(page, 'openai', fake.url, KEY)
  // Settings → Voice lists the new provider's speech models; pick the mini TTS model and a voice only it has.
  const voice = page.getByTestId('voice-settings')
  await expect(voice.getByTestId('voice-tts-model').locator('option[value="openai/gpt-4o-mini-tts"]')).toHaveCount(1)
  await voice.getByTestId('voice-tts-model').selectOption('openai/gpt-4o-mini-tts')
  await voice.getByTestId('voice-tts-voice').selectOption('verse')
  await expect(voice.getByTestId('voice-stt-model')).toHaveValue(/^openai\//)
  await page.getByTestId('nav-chat').click()
  // A chat of this test's own: nothing depends on which conversation another test left on top.
  await page.getByTestId('new-chat').click()
  await pickModel(page, 'openai', 'gpt-4o-mini')
  await expect(page.getByTestId('model-picker')).toContainText('mini')
}

test('read aloud: the reply is spoken with the TTS model and the audio plays', async ({ page }) => {
  await setUp(page)
  await page.getByTestId('composer-input').fill('say something')
  await page.getByTestId('composer-input').press('Enter')
  const reply = page.getByTestId('message-assistant').last()
  await expect(reply).toContainText('It has two sentences.')
  await reply.hover()
  await reply.getByTestId('read-aloud-play').click()
  const audio = reply.getByTestId('read-aloud-audio')
  await expect(audio).toHaveAttribute('src', /^blob:/)
  await expect(reply.getByTestId('read-aloud')).toHaveAttribute('data-state', 'playing')
  await expect.poll(() => audio.evaluate((el: HTMLAudioElement) => el.currentTime), { timeout: 10_000 }).toBeGreaterThan(0.2)
  const [speech] = fake.requestsTo('/audio/speech')
  expect(speech?.body).toMatchObject({ model: 'gpt-4o-mini-tts', voice: 'verse', input: 'Here is a reply that can be read aloud. It has two sentences.', response_format: 'mp3' })
  await snap(page, 'voice-read-aloud')

  // Pause and stop; playing again comes from the per-message cache, not the provider.
  await reply.hover()
  await reply.getByTestId('read-aloud-pause').click()
  await expect(reply.getByTestId('read-aloud')).toHaveAttribute('data-state', 'paused')
  await reply.getByTestId('read-aloud-stop').click()
  await expect(reply.getByTestId('read-aloud')).toHaveAttribute('data-state', 'idle')
  await page.reload()
  await expect(page.getByTestId('message-assistant').last()).toContainText('It has two sentences.')
  const again = page.getByTestId('message-assistant').last()
  await again.hover()
  await again.getByTestId('read-aloud-play').click()
  await expect.poll(() => again.getByTestId('read-aloud-audio').evaluate((el: HTMLAudioElement) => el.currentTime), { timeout: 10_000 }).toBeGreaterThan(0.1)
  expect(fake.requestsTo('/audio/speech')).toHaveLength(1)
})

test('dictation: the microphone records, shows its level, and inserts the transcription; Esc cancels', async ({ page }) => {
  await setUp(page)
  const mic = page.getByTestId('dictate')
  // Esc cancels a recording without any request.
  await mic.click()
  await expect(mic).toHaveAttribute('data-state', 'recording')
  await expect(page.getByTestId('level-meter')).toBeVisible()
  await page.keyboard.press('Escape')
  await expect(mic).toHaveAttribute('data-state', 'idle')
  expect(fake.requestsTo('/audio/transcriptions')).toHaveLength(0)

  await page.getByTestId('composer-input').fill('Note:')
  await mic.click()
  await expect(mic).toHaveAttribute('data-state', 'recording')
  await page.waitForTimeout(1200)
  await snap(page, 'voice-recording')
  await mic.click()
  await expect(page.getByTestId('composer-input')).toHaveValue(`Note: ${DICTATED}`)
  const [upload] = fake.requestsTo('/audio/transcriptions')
  expect(upload?.headers['content-type']).toMatch(/^multipart\/form-data/)
  expect(upload?.raw.toString('latin1')).toMatch(/filename="dictation\.(webm|ogg)"/)
  expect(upload?.raw.length).toBeGreaterThan(1000) // real recorded audio, not an empty blob
})

test('a PDF and an image attach, show their cost, and reach the provider in the request body', async ({ page }) => {
  await setUp(page)
  const before = fake.requestsTo('/chat/completions').length
  await page.getByTestId('attach-input').setInputFiles([
    { name: 'minutes.pdf', mimeType: 'application/pdf', buffer: Buffer.from(minimalPdf('The launch moves to Thursday')) },
    { name: 'wide.png', mimeType: 'image/png', buffer: png(3000, 40) }
  ])
  const chip = page.getByTestId('attachment-chip').filter({ hasText: 'minutes.pdf' })
  await expect(chip).toHaveAttribute('data-status', 'ready')
  await expect(chip.getByTestId('attachment-tokens')).toContainText(/\d+ tokens/)
  await expect(page.getByTestId('composer-images').locator('img')).toHaveCount(1)
  await expect(page.getByText(/scaled down to 2048×27/)).toBeVisible()
  await snap(page, 'files-attached')
  await page.getByTestId('composer-input').fill('What do these show?')
  await page.getByTestId('composer-input').press('Enter')
  await expect(page.getByTestId('message-user').last().getByTestId('message-files')).toContainText('minutes.pdf')
  await expect(page.getByTestId('message-assistant').last()).toContainText('It has two sentences.')

  const sent = fake.requestsTo('/chat/completions').slice(before).map((r) => r.body as { messages: { role: string; content: unknown }[] })
  const request = sent.find((b) => Array.isArray(b.messages.at(-1)?.content))
  const parts = request?.messages.at(-1)?.content as Array<{ type: string; text?: string; image_url?: { url: string } }>
  expect(parts.find((p) => p.type === 'text' && p.text?.startsWith('<file name="minutes.pdf">'))?.text).toContain('The launch moves to Thursday')
  expect(parts.some((p) => p.type === 'text' && p.text === 'What do these show?')).toBe(true)
  const image = parts.find((p) => p.type === 'image_url')?.image_url?.url ?? ''
  expect(image).toMatch(/^data:image\/png;base64,/)
  // The page scaled the 3000 px image to OpenAI's 2048 px edge before sending it.
  const sentPng = Buffer.from(image.split(',')[1] ?? '', 'base64')
  expect(sentPng.readUInt32BE(16)).toBe(2048)

  // A failing speech service shows the spec's text on the message.
  fake.enqueue('/audio/speech', { kind: 'json', status: 400, body: errorBody('Unsupported voice', 'invalid_value') })
  const reply = page.getByTestId('message-assistant').last()
  await reply.hover()
  await reply.getByTestId('read-aloud-play').click()
  await expect(reply.getByTestId('read-aloud-error')).toContainText('Speech-to-text and text-to-speech service request failed')
  await expect(reply.getByTestId('read-aloud')).toHaveAttribute('data-state', 'idle')
})
