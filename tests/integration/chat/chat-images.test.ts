import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Core } from '../../../src/core'
import { MemoryBackend } from '../../../src/core/secrets'
import type { BridgeClient } from '../../../src/shared/bridge/client'
import type { Contract } from '../../../src/shared/bridge/contract'
import type { ChatStreamEvent } from '../../../src/shared/bridge/procedures/chat'
import { applyStreamEvent, type LiveMessage } from '../../../src/shared/chat/apply-event'
import { messageText, type Message } from '../../../src/shared/data/message'
import type { Result } from '../../../src/shared/errors/app-error'
import { pngBytes, startFakeImages, type FakeImages } from '../../fixtures/fake-images/index'
import { startTestCore } from '../test-core'

// A chat-typed model that answers with an image (Gemini image output): the real Google runtime
// against a fake Gemini SSE endpoint, a real SQLite database and data folder.
let fake: FakeImages
let core: Core
let client: BridgeClient<Contract>
let dataDir: string
const PNG = pngBytes(40, 30)
const B64 = Buffer.from(PNG).toString('base64')
const ok = <T>(r: Result<T>) => {
  if (!r.ok) throw new Error(`${r.error.errorType}: ${r.error.message}`)
  return r.value
}

beforeAll(async () => {
  fake = await startFakeImages()
  dataDir = mkdtempSync(join(tmpdir(), 'sb-chat-images-'))
  const app = await startTestCore('sb-chat-images-', { dataDir, secrets: { backend: new MemoryBackend() } })
  core = app.core
  client = app.client
  ok(await client.call('providers.update', { providerId: 'google', baseURL: fake.origin }))
  ok(await client.call('providers.setKey', { providerId: 'google', apiKey: 'AIza-test-chat-images-0123456789' }))
  const { defaultAgentId } = ok(await client.call('chat.sidebar', {}))
  ok(await client.call('data.agents.update', { id: defaultAgentId, patch: { providerId: 'google', modelId: 'gemini-2.5-flash-image' } }))
})
afterAll(async () => {
  await core.close()
  await fake.close()
})

const sse = (chunk: unknown) => `data: ${JSON.stringify(chunk)}\r\n\r\n`

describe('images in chat replies', () => {
  it('a base64_image event is stored as a file (sha256), kept in the message and offered in the gallery', async () => {
    fake.enqueue('POST /v1beta/models/gemini-2.5-flash-image:streamGenerateContent', {
      contentType: 'text/event-stream',
      text:
        sse({ candidates: [{ content: { role: 'model', parts: [{ text: 'Here is your lighthouse.' }] }, index: 0 }] }) +
        sse({ candidates: [{ content: { role: 'model', parts: [{ inlineData: { mimeType: 'image/png', data: B64 } }] }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 9, totalTokenCount: 14 } })
    })
    const events: ChatStreamEvent[] = []
    const reply = await new Promise<Message>((resolve, reject) =>
      client.stream('chat.send', { text: 'Draw a lighthouse' } as never, {
        onEvent: (e: ChatStreamEvent) => events.push(e),
        onEnd: (r: Result<Message>) => (r.ok ? resolve(r.value) : reject(new Error(r.error.message)))
      })
    )
    expect(messageText(reply.content)).toBe('Here is your lighthouse.')
    const part = reply.content.find((p) => p.type === 'image_file')
    expect(part).toMatchObject({ type: 'image_file', mimeType: 'image/png', width: 40, height: 30 })
    if (part?.type !== 'image_file') return

    // The file: once per content, named by its sha256, with the exact bytes.
    const sha = createHash('sha256').update(PNG).digest('hex')
    const record = core.services().store.files.get(part.fileId)!
    expect(record.sha256).toBe(sha)
    expect(record.path).toBe(`images/${sha.slice(0, 2)}/${sha.slice(0, 16)}.png`)
    expect(readFileSync(join(dataDir, record.path)).equals(Buffer.from(PNG))).toBe(true)

    // Stored with the message: reopening the conversation shows it.
    const stored = ok(await client.call('chat.messages', { conversationId: reply.conversationId }))
    expect(stored.find((m) => m.id === reply.id)!.content).toContainEqual(part)
    expect(ok(await client.call('images.file', { fileId: part.fileId })).dataUrl).toBe(`data:image/png;base64,${B64}`)

    // Offered in the gallery, with the prompt that asked for it.
    const gallery = ok(await client.call('data.images.list', {}))
    const generation = gallery.find((g) => g.results.some((r) => r.fileId === part.fileId))!
    expect(generation).toMatchObject({ prompt: 'Draw a lighthouse', providerId: 'google', modelId: 'gemini-2.5-flash-image', status: 'Success' })
    expect(generation.parameters).toMatchObject({ source: 'chat', conversationId: reply.conversationId, messageId: reply.id })

    // While streaming, the renderer shows the image from the event itself.
    let live: LiveMessage = { ...reply, content: [] }
    for (const e of events) if (e.type === 'text' || e.type === 'base64_image') live = applyStreamEvent(live, e)
    expect(live.content.some((p) => p.type === 'image_url' && p.imageUrl.url === `data:image/png;base64,${B64}`)).toBe(true)
  })
})
