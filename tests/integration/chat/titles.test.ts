import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { Core } from '../../../src/core'
import { MemoryBackend } from '../../../src/core/secrets'
import { scenePrompts } from '../../../src/core/chat/scenes'
import type { BridgeClient } from '../../../src/shared/bridge/client'
import type { Contract } from '../../../src/shared/bridge/contract'
import type { Message } from '../../../src/shared/data/message'
import type { Result } from '../../../src/shared/errors/app-error'
import { chatChunks, errorBody, startFakeOpenAI, type FakeOpenAI, type RecordedRequest } from '../../fixtures/fake-openai'
import { startTestCore } from '../test-core'

// Background titles: the chat's own model unless Settings chose one, plain text of a bounded
// length, and the first words of the first message when no model can make one.
let fake: FakeOpenAI
let core: Core
let client: BridgeClient<Contract>
let titleAnswer: (req: RecordedRequest) => unknown

const ok = <T>(r: Result<T>): T => {
  if (!r.ok) throw new Error(`${r.error.errorType}: ${r.error.message}`)
  return r.value
}
const isTitle = (req: RecordedRequest) => (req.body as { messages: { content: string }[] }).messages[0]?.content === scenePrompts.title

beforeAll(async () => {
  fake = await startFakeOpenAI()
  const app = await startTestCore('sb-titles-', { secrets: { backend: new MemoryBackend() } })
  core = app.core
  client = app.client
  ok(await client.call('providers.update', { providerId: 'openai', baseURL: fake.url }))
  ok(await client.call('providers.setKey', { providerId: 'openai', apiKey: 'sk-titles-0001' }))
  const sidebar = ok(await client.call('chat.sidebar', {}))
  ok(await client.call('data.agents.update', { id: sidebar.defaultAgentId, patch: { providerId: 'openai', modelId: 'gpt-4o-mini' } }))
})
afterAll(async () => {
  await core.close()
  await fake.close()
})
beforeEach(() => {
  fake.reset()
  fake.setDefault('/chat/completions', (req: RecordedRequest) => (isTitle(req) ? titleAnswer(req) : { kind: 'sse', chunks: chatChunks(['An answer.']) }) as never)
})

async function titled(text: string): Promise<{ title: string | undefined; conversationTitle: string }> {
  const reply = await new Promise<Result<Message>>((resolve) => client.stream('chat.send', { text } as never, { onEvent: () => undefined, onEnd: resolve }))
  const conversationId = ok(reply).conversationId
  const title = await new Promise<Result<string | undefined>>((resolve) => client.stream('chat.title', { conversationId }, { onEvent: () => undefined, onEnd: resolve } as never))
  return { title: ok(title), conversationTitle: ok(await client.call('data.conversations.get', { id: conversationId })).title }
}

describe('background titles', () => {
  it('go to the chat’s own model when Settings chose none, as Settings says', async () => {
    titleAnswer = () => ({ kind: 'sse', chunks: chatChunks(['Greeting']) })
    expect((await titled('Hello there')).title).toBe('Greeting')
    const titleRequest = fake.requestsTo('/chat/completions').find(isTitle)
    expect((titleRequest!.body as { model: string }).model).toBe('gpt-4o-mini')
  })

  it('are plain text of a bounded length', async () => {
    titleAnswer = () => ({ kind: 'sse', chunks: chatChunks(['## **Trip** to _Kyoto_: a plan for seven days of temples, gardens, food and a lot of walking.']) })
    const { conversationTitle } = await titled('Plan my trip')
    expect(conversationTitle).toBe('Trip to Kyoto: a plan for seven days of temples, gardens…')
  })

  it('fall back to the first words of the first message when the model cannot make one', async () => {
    // A proxy that does not serve the model: the title call fails, the chat still gets a name.
    titleAnswer = () => ({ kind: 'json', status: 404, body: errorBody('The model does not exist', 'model_not_found') })
    const failed = await titled('Why is the **sky** blue at noon but red at sunset?')
    expect(failed.conversationTitle).toBe('Why is the sky blue at noon but')
    titleAnswer = () => ({ kind: 'sse', chunks: chatChunks(['```', '```']) })
    expect((await titled('Empty answers happen')).conversationTitle).toBe('Empty answers happen')
  })
})
