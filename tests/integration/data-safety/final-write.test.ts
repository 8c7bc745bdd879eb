import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Core } from '../../../src/core'
import { MemoryBackend } from '../../../src/core/secrets'
import type { BridgeClient } from '../../../src/shared/bridge/client'
import type { Contract } from '../../../src/shared/bridge/contract'
import type { ChatStreamEvent } from '../../../src/shared/bridge/procedures/chat'
import { messageText, type Message } from '../../../src/shared/data/message'
import type { Result } from '../../../src/shared/errors/app-error'
import { chatChunks, startFakeOpenAI, type FakeOpenAI } from '../../fixtures/fake-openai'
import { startTestCore, type TestCore } from '../test-core'

// A reply whose final write fails (the disk fills up while it streams): the real chat service,
// the real openai SDK against a fake SSE server, a real database whose page limit gives a real
// SQLITE_FULL.
let fake: FakeOpenAI
let app: TestCore
let core: Core
let client: BridgeClient<Contract>

beforeAll(async () => {
  fake = await startFakeOpenAI()
  app = await startTestCore('sb-final-write-', { secrets: { backend: new MemoryBackend() } })
  expect(app.state.phase).toBe('ready')
  core = app.core
  client = app.client
  await client.call('providers.update', { providerId: 'openai', baseURL: fake.url })
  await client.call('providers.setKey', { providerId: 'openai', apiKey: 'sk-test-final-write-0123456789' })
})
afterAll(async () => {
  await app.close()
  await fake.close()
})

const send = (input: object, onEvent?: (e: ChatStreamEvent) => void) =>
  new Promise<Result<Message>>((resolve) => {
    client.stream('chat.send', input as never, { onEvent: (e) => onEvent?.(e as ChatStreamEvent), onEnd: (r) => resolve(r as Result<Message>) })
  })

describe('a failed final write never leaves a reply streaming', () => {
  it('the reply ends, leaves the running tasks, shows the failure, reads back complete, and is saved once space is back', async () => {
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['First ', 'answer']) })
    // (The title is its own task since issue 15: chat.send makes one model call.)
    const first = await send({ text: 'hello', providerId: 'openai', modelId: 'gpt-4o-mini' })
    if (!first.ok) throw new Error(first.error.message)
    const conversationId = first.value.conversationId

    const sqlite = core.services().store.db.sqlite
    const big = Array.from({ length: 40 }, (_, i) => `${i} ${'x'.repeat(4000)} `)
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(big), delayMs: 5 })
    let full = false
    const second = await send({ conversationId, text: 'a long one please', providerId: 'openai', modelId: 'gpt-4o-mini' }, (event) => {
      // The disk fills up once the reply is streaming.
      if (event.type === 'text' && !full) {
        full = true
        sqlite.pragma(`max_page_count = ${sqlite.pragma('page_count', { simple: true }) as number}`)
      }
    })
    if (!second.ok) throw new Error(second.error.message)
    expect(second.value.status).toBe('complete')
    expect(second.value.error?.errorType).toBe('DiskFull')
    expect(second.value.error?.message).toMatch(/could not be saved yet/)

    // Not live any more: nothing to re-attach to, and readers see the finished reply.
    const active = await client.call('tasks.active', { kind: 'chat' })
    expect(active.ok && active.value).toEqual([])
    const messages = await client.call('chat.messages', { conversationId })
    const shown = messages.ok ? messages.value.find((m) => m.id === second.value.id) : undefined
    expect(shown?.status).toBe('complete')
    expect(messageText(shown!.content)).toBe(big.join(''))
    const onDisk = () => sqlite.prepare('SELECT status, length(text) AS n FROM messages WHERE id = ?').get(second.value.id) as { status: string; n: number }
    expect(onDisk().status).toBe('streaming')

    // Space comes back: the retry writes the whole reply.
    sqlite.pragma('max_page_count = 1073741823')
    await expect.poll(() => onDisk(), { timeout: 10_000, interval: 200 }).toEqual({ status: 'complete', n: big.join('').length })
  }, 30_000)
})
