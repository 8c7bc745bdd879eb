import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Core } from '../../../src/core'
import { createInProcessClient } from '../../../src/core/bridge/in-process'
import { MemoryBackend } from '../../../src/core/secrets'
import type { BridgeClient } from '../../../src/shared/bridge/client'
import type { Contract } from '../../../src/shared/bridge/contract'
import type { ChatStreamEvent } from '../../../src/shared/bridge/procedures/chat'
import type { Message } from '../../../src/shared/data/message'
import { messageText } from '../../../src/shared/data/message'
import type { Result } from '../../../src/shared/errors/app-error'
import { chatChunks, errorBody, startFakeOpenAI, type FakeOpenAI } from '../../fixtures/fake-openai'
import { readyTestCore } from '../test-core'

// The chat service end to end in the core: the real openai SDK against a fake server that
// speaks SSE, a real SQLite database in a temporary folder, the bridge in-process.
const KEY = 'sk-test-chat-service-0123456789abcdef'
let fake: FakeOpenAI
let core: Core
let client: BridgeClient<Contract>
let dataDir: string

beforeAll(async () => {
  fake = await startFakeOpenAI()
  dataDir = mkdtempSync(join(tmpdir(), 'sb-chat-'))
  const app = await readyTestCore('sb-chat-', { dataDir, secrets: { backend: new MemoryBackend() } })
  core = app.core
  client = app.client
  const ok = <T>(r: Result<T>) => {
    if (!r.ok) throw new Error(r.error.message)
    return r.value
  }
  ok(await client.call('providers.update', { providerId: 'openai', baseURL: fake.url }))
  ok(await client.call('providers.setKey', { providerId: 'openai', apiKey: KEY }))
  const sidebar = ok(await client.call('chat.sidebar', {}))
  ok(await client.call('data.agents.update', { id: sidebar.defaultAgentId, patch: { providerId: 'openai', modelId: 'gpt-4o-mini', systemPrompt: 'Be brief.' } }))
})

afterAll(async () => {
  await core.close()
  await fake.close()
})

beforeEach(() => fake.reset())

type Run = { events: ChatStreamEvent[]; result: Result<Message>; streamId: string }

function run(start: (handlers: { onEvent(e: ChatStreamEvent): void; onEnd(r: Result<Message>): void }) => { streamId: Promise<string> }): Promise<Run> {
  return new Promise((resolve) => {
    const events: ChatStreamEvent[] = []
    let streamId = ''
    const handle = start({ onEvent: (e) => events.push(e), onEnd: (result) => resolve({ events, result, streamId }) })
    void handle.streamId.then((id) => (streamId = id))
  })
}

const send = (input: Parameters<BridgeClient<Contract>['stream']>[1] & object) =>
  run((h) => client.stream('chat.send', input as never, h))

const reply = (r: Run) => {
  if (!r.result.ok) throw new Error(`${r.result.error.errorType}: ${r.result.error.message}`)
  return r.result.value
}

describe('chat service', () => {
  it('streams a reply, stores both turns, prices usage and titles the conversation', async () => {
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['Hel', 'lo ', 'there'], { usage: { prompt_tokens: 1000, completion_tokens: 2000, total_tokens: 3000 } }) })
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['Greeting ', 'title'], {}) })
    const r = await send({ text: 'Say hello' })
    const final = reply(r)
    expect(messageText(final.content)).toBe('Hello there')
    expect(final.status).toBe('complete')
    expect(final.usage?.totalOutputTokens).toBe(2000)
    // gpt-4o-mini costs 0.15 / 0.6 USD per million tokens in the catalogue.
    expect(final.cost?.currency).toBe('USD')
    expect(final.cost?.total).toBeCloseTo(0.00015 + 0.0012, 8)
    expect(r.events[0]?.type).toBe('reply')
    expect(r.events.filter((e) => e.type === 'text').map((e) => e.data)).toEqual(['Hel', 'lo ', 'there'])
    // issue 15: the title is its own task, started after the reply (the reply never waits for it).
    expect(r.events.some((e) => e.type === 'title')).toBe(false)
    const titled = await run((h) => client.stream('chat.title', { conversationId: final.conversationId }, h as never))
    expect(titled.result.ok && titled.result.value).toBe('Greeting title')
    const title = titled.events.find((e) => e.type === 'title')
    expect(title?.type === 'title' && title.data.title).toBe('Greeting title')

    // What the provider received: the agent's system prompt, then the user's text.
    const body = fake.requestsTo('/chat/completions')[0]!.body as { model: string; messages: { role: string; content: string }[]; stream: boolean }
    expect(body.model).toBe('gpt-4o-mini')
    expect(body.stream).toBe(true)
    expect(body.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Say hello' }
    ])
    expect(fake.requestsTo('/chat/completions')[0]!.headers.authorization).toBe(`Bearer ${KEY}`)

    const stored = await client.call('chat.messages', { conversationId: final.conversationId })
    expect(stored.ok && stored.value.map((m) => [m.role, messageText(m.content), m.status])).toEqual([
      ['user', 'Say hello', 'complete'],
      ['assistant', 'Hello there', 'complete']
    ])
    const usage = core.services().store.usage.list({})
    expect(usage.some((u) => u.scene === 'Conversation')).toBe(true)
    expect(usage.some((u) => u.scene === 'Summary Topic Title')).toBe(true)
  })

  it('sends the whole branch as history on the next turn', async () => {
    const first = reply(await send({ text: 'One' }))
    fake.reset()
    const second = reply(await send({ conversationId: first.conversationId, text: 'Two' }))
    expect(second.parentId).toBeDefined()
    const body = fake.requestsTo('/chat/completions')[0]!.body as { messages: { role: string; content: string }[] }
    expect(body.messages.map((m) => `${m.role}:${m.content}`)).toEqual(['system:Be brief.', 'user:One', 'assistant:Hello world', 'user:Two'])
  })

  it('a wrong key ends the reply with InvalidProviderAPIKey, stored with the message; no key in the error', async () => {
    fake.enqueue('/chat/completions', { kind: 'json', status: 401, body: errorBody(`Incorrect API key provided: ${KEY.slice(0, 8)}…`, 'invalid_api_key') })
    const r = await send({ text: 'hi' })
    const final = reply(r)
    expect(final.status).toBe('error')
    expect(final.error?.errorType).toBe('InvalidProviderAPIKey')
    expect(JSON.stringify(r.events)).not.toContain(KEY)
  })

  it('stopping keeps the partial text as interrupted', async () => {
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(Array.from({ length: 200 }, (_, i) => `w${i} `)), delayMs: 10 })
    const events: ChatStreamEvent[] = []
    const done = new Promise<Result<Message>>((resolve) => {
      const handle = client.stream('chat.send', { text: 'long please' }, {
        onEvent: (e) => {
          events.push(e)
          if (events.filter((x) => x.type === 'text').length === 5) handle.cancel()
        },
        onEnd: resolve
      })
    })
    const final = (await done) as { ok: true; value: Message }
    expect(final.ok).toBe(true)
    expect(final.value.status).toBe('interrupted')
    expect(final.value.error).toBeUndefined() // a stop is not an error
    expect(events.some((e) => e.type === 'error')).toBe(false)
    const text = messageText(final.value.content)
    expect(text.startsWith('w0 w1 w2 w3 w4')).toBe(true)
    expect(text.length).toBeLessThan(200 * 4)
    const stored = core.services().store.messages.get(final.value.id)!
    expect(stored.status).toBe('interrupted')
    expect(messageText(stored.content)).toBe(text)
    // issue 17: the page words "you stopped it" apart from a dropped connection.
    expect(final.value.meta?.interruptedBy).toBe('user')
    expect(stored.meta?.interruptedBy).toBe('user')
  })

  it('how long the model reasoned is kept with the reply, so a reload still shows it (issue 17)', async () => {
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['The answer.'], { reasoning: ['Let me ', 'think.'] }), delayMs: 40 })
    const final = reply(await send({ text: 'think first' }))
    expect(final.reasoning?.text).toBe('Let me think.')
    // Three chunks apart at 40 ms each: from the first reasoning to the first text.
    expect(final.reasoning?.durationMs).toBeGreaterThanOrEqual(60)
    expect(final.reasoning?.durationMs).toBeLessThan(5000)
    expect(core.services().store.messages.get(final.id)!.reasoning?.durationMs).toBe(final.reasoning?.durationMs)
  })

  it('a connection that drops mid-reply is interrupted with its error, not marked as stopped by the user (issue 17)', async () => {
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['partial ', 'text', ' never']), truncateAfter: 3 })
    const final = reply(await send({ text: 'drop please' }))
    expect(final.status).toBe('interrupted')
    expect(final.error?.errorType).toBe('ProviderNetworkError')
    expect(final.meta?.interruptedBy).toBeUndefined()
    expect(core.services().store.messages.get(final.id)!.meta?.interruptedBy).toBeUndefined()
  })

  it('a running reply is listed and can be re-attached from the start by another window', async () => {
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(Array.from({ length: 40 }, (_, i) => `t${i} `)), delayMs: 5 })
    const firstWindow = createInProcessClient(core.router)
    let seen = 0
    const handle = firstWindow.client.stream('chat.send', { text: 'stream please' }, { onEvent: () => seen++ })
    const sid = await handle.streamId
    // Reload mid-reply: once the first events arrived.
    await vi.waitFor(() => expect(seen).toBeGreaterThan(0))
    firstWindow.close() // the window was reloaded
    const active = await client.call('tasks.active', { kind: 'chat' })
    expect(active.ok && active.value.map((a) => a.id)).toContain(sid)
    const again = await run((h) => client.attach('chat.send', sid, h, 0))
    const final = reply(again)
    expect(messageText(final.content)).toBe(Array.from({ length: 40 }, (_, i) => `t${i} `).join(''))
    expect(again.events.filter((e) => e.type === 'text')).toHaveLength(40)
    const after = await client.call('tasks.active', {})
    expect(after.ok && after.value).toEqual([])
  })

  it('regenerate keeps the old reply as a branch; delete-and-regenerate replaces it', async () => {
    const first = reply(await send({ text: 'Pick a number' }))
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['Seven']) })
    const second = reply(await run((h) => client.stream('chat.regenerate', { messageId: first.id }, h)))
    expect(second.parentId).toBe(first.parentId)
    expect(messageText(second.content)).toBe('Seven')
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['Nine']) })
    const third = reply(await run((h) => client.stream('chat.regenerate', { messageId: second.id, deleteOld: true }, h)))
    const all = await client.call('chat.messages', { conversationId: first.conversationId })
    const siblings = all.ok ? all.value.filter((m) => m.parentId === first.parentId) : []
    expect(siblings.map((m) => messageText(m.content))).toEqual(['Hello world', 'Nine'])
    expect(third.status).toBe('complete')
  })

  it('editing a user message makes a new branch from the same parent and replies to it', async () => {
    const first = reply(await send({ text: 'Typo questoin' }))
    const user = core.services().store.messages.get(first.parentId!)!
    fake.reset()
    const edited = reply(await run((h) => client.stream('chat.editAndResend', { messageId: user.id, text: 'Typo question' }, h)))
    const newUser = core.services().store.messages.get(edited.parentId!)!
    expect(messageText(newUser.content)).toBe('Typo question')
    expect(newUser.parentId).toBe(user.parentId)
    const body = fake.requestsTo('/chat/completions')[0]!.body as { messages: { content: string }[] }
    expect(body.messages.at(-1)?.content).toBe('Typo question')
  })

  it('deleting a turn re-attaches what followed it', async () => {
    const a = reply(await send({ text: 'A' }))
    const b = reply(await send({ conversationId: a.conversationId, text: 'B' }))
    const userB = b.parentId!
    const removed = await client.call('chat.deleteMessage', { messageId: a.id })
    expect(removed).toEqual({ ok: true, value: 1 })
    expect(core.services().store.messages.get(userB)!.parentId).toBe(a.parentId)
  })

  it('refuses a message with neither text nor image, naming the field', async () => {
    const r = await new Promise<string>((resolve) => client.stream('chat.send', { text: '   ' }, { onRefused: (e) => resolve(e.message) }))
    expect(r).toMatch(/text/)
  })

  it('a model that does not exist in the catalogue still chats; an unknown provider id is a clear error', async () => {
    // A model id the catalogue does not know goes to the provider as it is and answers.
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['still ', 'here'], {}) })
    const known = reply(await send({ text: 'hi', providerId: 'openai', modelId: 'not-in-the-catalogue-1' }))
    expect(known.status).toBe('complete')
    expect(messageText(known.content)).toBe('still here')
    expect(fake.requestsTo('/chat/completions').map((r) => (r.body as { model: string }).model)[0]).toBe('not-in-the-catalogue-1')

    // An unknown provider id: the reply ends as an error that names the id, and nothing is sent anywhere.
    const before = fake.requestsTo('/chat/completions').length
    const r = await send({ text: 'hi', providerId: 'nope-provider', modelId: 'x' })
    const failed = reply(r)
    expect(failed.status).toBe('error')
    const error = r.events.find((e) => e.type === 'error')?.data as { errorType: string; message: string } | undefined
    expect(error, JSON.stringify(r.events.map((e) => e.type))).toBeDefined()
    expect(error!.message).toMatch(/^Unknown provider id 'nope-provider'/)
    expect(error!.errorType).toBe('UnknownProvider')
    expect(fake.requestsTo('/chat/completions').length).toBe(before)
  })

  it('titles a new conversation with the model chosen for Summary Topic Title', async () => {
    const set = await client.call('data.settings.set', { patch: { titleModel: { providerId: 'openai', modelId: 'gpt-4.1-nano' } } })
    expect(set.ok).toBe(true)
    const named = reply(await send({ text: 'Name me' }))
    await run((h) => client.stream('chat.title', { conversationId: named.conversationId }, h as never))
    const models = fake.requestsTo('/chat/completions').map((r) => (r.body as { model: string }).model)
    expect(models).toEqual(['gpt-4o-mini', 'gpt-4.1-nano'])
    await client.call('data.settings.set', { patch: { titleModel: null } })
  })

  it('never writes the key into the database', async () => {
    core.services().store.db.sqlite.pragma('wal_checkpoint(TRUNCATE)')
    for (const file of readdirSync(dataDir)) {
      if (!file.startsWith('switchboard.db')) continue
      expect(readFileSync(join(dataDir, file)).includes(Buffer.from(KEY))).toBe(false)
    }
  })
})
