import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Core } from '../../../src/core'
import { MemoryBackend } from '../../../src/core/secrets'
import type { BridgeClient } from '../../../src/shared/bridge/client'
import type { Contract } from '../../../src/shared/bridge/contract'
import type { ChatStreamEvent } from '../../../src/shared/bridge/procedures/chat'
import type { CompetitionStarted } from '../../../src/shared/bridge/procedures/competition'
import { messageText, type Message } from '../../../src/shared/data/message'
import type { Result } from '../../../src/shared/errors/app-error'
import { chatChunks, errorBody, startFakeOpenAI, type FakeOpenAI, type RecordedRequest } from '../../fixtures/fake-openai'
import { startFakeOllama, type FakeOllama } from '../../fixtures/fake-ollama'
import { readyTestCore } from '../test-core'

// Chat Competition (issue 18) in the core: the real openai SDK against a fake server that answers
// per model (one fast, one that keeps the stream open until stopped, one failing), real SQLite,
// the bridge in-process. Each reply is its own hub stream.
const KEY = 'sk-test-competition-0123456789abcdef'
let fake: FakeOpenAI
let ollama: FakeOllama
let core: Core
let client: BridgeClient<Contract>
let dataDir: string

const ok = <T>(r: Result<T>) => {
  if (!r.ok) throw new Error(`${r.error.errorType}: ${r.error.message}`)
  return r.value
}

const FAST = { providerId: 'openai', modelId: 'gpt-4o-mini' }
const STALL = { providerId: 'openai', modelId: 'gpt-4o' }
const FAIL = { providerId: 'openai', modelId: 'gpt-4.1' }

/** The fake answers by the model asked: the chosen behaviour per model id. */
function byModel() {
  fake.setDefault('/chat/completions', (req: RecordedRequest) => {
    const model = (req.body as { model: string }).model
    if (model === STALL.modelId) return { kind: 'sse', chunks: chatChunks(['Slow ', 'start', ' never', ' ends']), stallAfter: 3 }
    if (model === FAIL.modelId) return { kind: 'json', status: 400, body: errorBody('The model is overloaded with opinions.', 'model_error') }
    return { kind: 'sse', delayMs: 40, chunks: chatChunks(['Fast ', 'and ', 'complete ', 'answer'], { model, usage: { prompt_tokens: 10, completion_tokens: 4, total_tokens: 14 } }) }
  })
}

beforeAll(async () => {
  fake = await startFakeOpenAI()
  ollama = await startFakeOllama()
  dataDir = mkdtempSync(join(tmpdir(), 'sb-competition-'))
  const app = await readyTestCore('sb-competition-', { dataDir, secrets: { backend: new MemoryBackend() } })
  core = app.core
  client = app.client
  ok(await client.call('providers.update', { providerId: 'openai', baseURL: fake.url }))
  ok(await client.call('providers.setKey', { providerId: 'openai', apiKey: KEY }))
  ok(await client.call('local.setBaseUrl', { kind: 'ollama', baseUrl: ollama.url }))
})

afterAll(async () => {
  await core.close()
  await fake.close()
  await ollama.close()
  rmSync(dataDir, { recursive: true, force: true })
})

beforeEach(() => {
  fake.reset()
  byModel()
})

interface Followed {
  events: ChatStreamEvent[]
  /** Resolves with the reply's message id as soon as its first event arrives. */
  messageId: Promise<string>
  done: Promise<Result<Message>>
}

/** Attaches to a competing reply's stream from event 0, as the renderer does. */
function follow(streamId: string): Followed {
  const events: ChatStreamEvent[] = []
  let resolveId!: (id: string) => void
  const messageId = new Promise<string>((r) => (resolveId = r))
  const done = new Promise<Result<Message>>((resolve) => {
    client.attach('chat.send', streamId, {
      onEvent: (e) => {
        events.push(e)
        if (e.type === 'reply') resolveId(e.data.assistantMessage.id)
      },
      onEnd: resolve,
      onRefused: (error) => resolve({ ok: false, error })
    })
  })
  return { events, messageId, done }
}

const byModelId = (started: CompetitionStarted, modelId: string) => started.replies.find((r) => r.modelId === modelId)!

describe('chat competition', () => {
  it('one user message, three sibling replies streaming at once; stopping one leaves the others running; each logged as Chat Competition', async () => {
    const started = ok(await client.call('competition.start', { text: 'Which is best?', models: [FAST, STALL, FAIL] }))
    expect(started.replies.map((r) => r.modelId)).toEqual([FAST.modelId, STALL.modelId, FAIL.modelId])
    expect(new Set(started.replies.map((r) => r.streamId)).size).toBe(3)
    expect(started.userMessage.meta?.competition).toEqual({ models: [FAST, STALL, FAIL] })

    const fast = follow(byModelId(started, FAST.modelId).streamId)
    const stall = follow(byModelId(started, STALL.modelId).streamId)
    const fail = follow(byModelId(started, FAIL.modelId).streamId)
    const stallId = await stall.messageId
    const fastId = await fast.messageId

    // All running replies are listed, so a reloaded window re-follows each one.
    await expect.poll(async () => ok(await client.call('tasks.active', { kind: 'chat' })).map((a) => (a.kind === 'chat' ? a.meta.messageId : ''))).toEqual(expect.arrayContaining([stallId, fastId]))
    // The stalled reply has its first text, then the user stops only it.
    await expect.poll(() => stall.events.filter((e) => e.type === 'text').length).toBe(2)
    expect(fast.events.some((e) => e.type === 'stop')).toBe(false)
    expect(ok(await client.call('chat.stop', { messageId: stallId }))).toBe(true)
    const stopped = ok(await stall.done)
    expect(stopped.status).toBe('interrupted')
    expect(messageText(stopped.content)).toBe('Slow start')

    // The fast one was still streaming when its sibling stopped, and it finishes in full.
    const fastDone = ok(await fast.done)
    expect(fastDone.status).toBe('complete')
    expect(messageText(fastDone.content)).toBe('Fast and complete answer')
    expect(fast.events.filter((e) => e.type === 'text').length).toBe(4)

    const failed = ok(await fail.done)
    expect(failed.status).toBe('error')
    expect(failed.error?.message).toContain('overloaded with opinions')

    // The replies are siblings under the one user message.
    for (const m of [stopped, fastDone, failed]) expect(m.parentId).toBe(started.userMessage.id)
    const all = ok(await client.call('chat.messages', { conversationId: started.conversation.id }))
    expect(all.filter((m) => m.role === 'user')).toHaveLength(1)
    expect(all.filter((m) => m.parentId === started.userMessage.id).map((m) => m.modelId).sort()).toEqual([FAIL.modelId, STALL.modelId, FAST.modelId].sort())

    // The usage log has the mode for each reply (the failed and the stopped one too).
    const usage = core.services().store.usage.list({}).filter((u) => u.conversationId === started.conversation.id && u.scene === 'Conversation')
    expect(usage.map((u) => [u.messageId, u.modelId, u.mode]).sort()).toEqual(
      [
        [fastDone.id, FAST.modelId, 'Chat Competition'],
        [stopped.id, STALL.modelId, 'Chat Competition'],
        [failed.id, FAIL.modelId, 'Chat Competition']
      ].sort()
    )
  })

  it('regenerates one column (same model, a new sibling) or all columns, each logged as Chat Competition', async () => {
    const started = ok(await client.call('competition.start', { text: 'Again?', models: [FAST, FAIL] }))
    const first = await Promise.all(started.replies.map((r) => follow(r.streamId).done))
    const fastReply = first.map(ok).find((m) => m.modelId === FAST.modelId)!
    const one = ok(await client.call('competition.regenerate', { messageId: fastReply.id }))
    expect(one.replies.map((r) => r.modelId)).toEqual([FAST.modelId])
    const again = ok(await follow(one.replies[0]!.streamId).done)
    expect(again.parentId).toBe(started.userMessage.id)
    expect(again.id).not.toBe(fastReply.id)

    const all = ok(await client.call('competition.regenerate', { userMessageId: started.userMessage.id }))
    expect(all.replies.map((r) => r.modelId)).toEqual([FAST.modelId, FAIL.modelId])
    await Promise.all(all.replies.map((r) => follow(r.streamId).done))
    const siblings = ok(await client.call('chat.messages', { conversationId: started.conversation.id })).filter((m) => m.parentId === started.userMessage.id)
    expect(siblings).toHaveLength(5)
    const usage = core.services().store.usage.list({}).filter((u) => u.conversationId === started.conversation.id && u.scene === 'Conversation')
    expect(usage).toHaveLength(5)
    expect(usage.every((u) => u.mode === 'Chat Competition')).toBe(true)
    expect(usage.filter((u) => u.operation === 'Regenerate Message')).toHaveLength(3)

    // A message not sent to a competition, or both ids at once, is refused with a reason.
    const neither = await client.call('competition.regenerate', {})
    expect(neither).toMatchObject({ ok: false, error: { errorType: 'ValidationError' } })
  })

  it('the chosen reply is the one the conversation continues from; its model becomes the conversation model', async () => {
    const started = ok(await client.call('competition.start', { text: 'Pick me', models: [FAST, { providerId: 'openai', modelId: 'gpt-4.1-mini' }] }))
    const done = (await Promise.all(started.replies.map((r) => follow(r.streamId).done))).map(ok)
    const chosen = done.find((m) => m.modelId === 'gpt-4.1-mini')!
    const picked = ok(await client.call('competition.choose', { messageId: chosen.id }))
    expect(picked.userMessage.meta?.competition?.chosenId).toBe(chosen.id)
    expect([picked.conversation.providerId, picked.conversation.modelId]).toEqual(['openai', 'gpt-4.1-mini'])

    fake.reset()
    byModel()
    const next = await new Promise<Result<Message>>((resolve) =>
      client.stream('chat.send', { conversationId: started.conversation.id, parentId: chosen.id, text: 'Go on' }, { onEnd: resolve })
    )
    const reply = ok(next)
    expect(reply.modelId).toBe('gpt-4.1-mini')
    const body = fake.requestsTo('/chat/completions')[0]!.body as { messages: { role: string; content: string }[] }
    expect(body.messages.map((m) => `${m.role}:${m.content}`)).toEqual(['user:Pick me', 'assistant:Fast and complete answer', 'user:Go on'])
    // The other reply stays a branch of the turn.
    const siblings = ok(await client.call('chat.messages', { conversationId: started.conversation.id })).filter((m) => m.parentId === started.userMessage.id)
    expect(siblings.map((m) => m.id).sort()).toEqual(done.map((m) => m.id).sort())
  })

  it('any providers, a local one included: a cloud model and a local Ollama model answer the one message', async () => {
    const local = { providerId: 'ollama', modelId: 'qwen3:0.6b' }
    const started = ok(await client.call('competition.start', { text: 'Cloud or local?', models: [FAST, local] }))
    const done = (await Promise.all(started.replies.map((r) => follow(r.streamId).done))).map(ok)
    expect(done.map((m) => [m.providerId, m.status])).toEqual([
      ['openai', 'complete'],
      ['ollama', 'complete']
    ])
    expect(messageText(done[1]!.content).length).toBeGreaterThan(0)
    // Both providers received the same user message.
    const asked = ollama.requests.filter((r) => r.path === '/api/chat').at(-1)!.body as { messages: { role: string; content: string }[] }
    expect(asked.messages.at(-1)).toMatchObject({ role: 'user', content: 'Cloud or local?' })
    const usage = core.services().store.usage.list({}).filter((u) => u.conversationId === started.conversation.id)
    expect(usage.filter((u) => u.mode === 'Chat Competition').map((u) => u.providerId).sort()).toEqual(['ollama', 'openai'])
  })

  it('needs two different models', async () => {
    const same = await client.call('competition.start', { text: 'x', models: [FAST, FAST] })
    expect(same).toMatchObject({ ok: false, error: { errorType: 'ValidationError' } })
    const one = await client.call('competition.start', { text: 'x', models: [FAST] })
    expect(one).toMatchObject({ ok: false, error: { errorType: 'ValidationError' } })
  })
})
