import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { Message } from '../../../src/shared/data/message'
import type { Result } from '../../../src/shared/errors/app-error'
import { scenePrompts } from '../../../src/core/chat/scenes'
import { hashedEmbeddingsReply } from '../../fixtures/fake-embeddings'
import { chatChunks, errorBody, startFakeOpenAI, type FakeOpenAI, type FakeResponse, type RecordedRequest } from '../../fixtures/fake-openai'
import { ok, startCore, TOPICS, writeTree, type TestCore } from './helpers'

// issue 22: with a model chosen for the scene Search Intent Recognition, a follow-up question is
// rewritten into a standalone search query before knowledge retrieval. One fake OpenAI serves the
// embeddings (hashed n-gram vectors, so retrieval is real), the rewrite and the reply; the rewrite
// request is told apart by the scene's system prompt.
let fake: FakeOpenAI
let t: TestCore
let agentId: string

const FIRST = 'Which router does the office use?'
const FOLLOW_UP = 'and how do I reset it?'
const REWRITTEN = 'How to restore the office Zyxel VMG8825 router to factory settings'
// The only file about the router: nothing in it matches the follow-up's own words ("reset", "it").
const ROUTER = 'The office router is a Zyxel VMG8825. Holding its pinhole button for ten seconds restores the factory settings.'
const SCENE = 'Search Intent Recognition'

type ChatBody = { messages: { role: string; content: string }[] }
const isRewrite = (r: RecordedRequest) => (r.body as ChatBody).messages?.[0]?.content === scenePrompts.knowledgeQuery
const rewrites = () => fake.requestsTo('/chat/completions').filter(isRewrite)
const embedded = () => fake.requestsTo('/embeddings').flatMap((r) => (r.body as { input: string[] }).input)

/** What the rewrite answers (changed per test); the reply is always the same. */
let rewriteResponse: () => FakeResponse = () => ({ kind: 'sse', chunks: chatChunks([REWRITTEN], { usage: { prompt_tokens: 40, completion_tokens: 12, total_tokens: 52 } }) })

beforeAll(async () => {
  fake = await startFakeOpenAI()
  fake.setDefault('/embeddings', hashedEmbeddingsReply())
  fake.setDefault('/chat/completions', (req) => (isRewrite(req) ? rewriteResponse() : { kind: 'sse', chunks: chatChunks(['See [1].']) }))
  t = await startCore(fake.url)
  const kbId = ok(await t.client.call('knowledge.create', { name: 'Office', providerId: 'openai', modelId: 'text-embedding-3-small' })).id
  ok(await t.client.call('knowledge.addPaths', { kbId, paths: [writeTree({ ...TOPICS, 'notes/router.txt': ROUTER })] }))
  await t.core.services().knowledge.idle(kbId)
  agentId = (ok(await t.client.call('data.agents.create', { name: 'Office helper' } as never)) as { id: string }).id
  ok(await t.client.call('knowledge.attach', { owner: { kind: 'agent', id: agentId }, kbIds: [kbId] }))
})
afterAll(async () => {
  await t.core.close()
  await fake.close()
})

const send = (input: Record<string, unknown>): Promise<Result<Message>> =>
  new Promise((resolve) => t.client.stream('chat.send', { providerId: 'openai', modelId: 'gpt-4o-mini', ...input } as never, { onEvent: () => undefined, onEnd: resolve }))

/** A first question about the router, then the follow-up under its answer; the follow-up's reply. */
async function followUp(): Promise<Message> {
  const first = ok(await send({ agentId, text: FIRST }))
  return ok(await send({ conversationId: first.conversationId, parentId: first.id, text: FOLLOW_UP }))
}
const sourcesOf = async (reply: Message) => t.core.services().store.messages.require(reply.id).grounding?.knowledge ?? []
const chooseSceneModel = async (on: boolean) =>
  ok(await t.client.call('data.settings.set', { patch: { sceneModels: on ? { [SCENE]: { providerId: 'openai', modelId: 'gpt-4o-mini' } } : null } }))

beforeEach(() => {
  fake.requests.length = 0
})

describe('query rewriting before knowledge retrieval', () => {
  it('without a model for Search Intent Recognition, the question is searched as asked and nothing extra is requested', async () => {
    await chooseSceneModel(false)
    const reply = await followUp()
    expect(rewrites()).toHaveLength(0)
    expect(embedded()).toContain(FOLLOW_UP)
    expect(embedded()).not.toContain(REWRITTEN)
    // The follow-up on its own does not find the router file first.
    expect((await sourcesOf(reply))[0]?.fileName).not.toBe('router.txt')
    expect(reply.meta?.knowledgeQuery).toBeUndefined()
  })

  it('with the scene model chosen, the follow-up is rewritten with the earlier turns and retrieval finds the router file', async () => {
    await chooseSceneModel(true)
    const reply = await followUp()
    expect(reply.status).toBe('complete')
    // One rewrite per user turn; the follow-up's carries the first question and its answer as context.
    const asked = rewrites().map((r) => (r.body as ChatBody).messages[1]!.content)
    expect(asked).toHaveLength(2)
    expect(asked[1]).toContain(`user: ${FIRST}`)
    expect(asked[1]).toContain('assistant: See [1].')
    expect(asked[1]).toContain(`Latest question: ${FOLLOW_UP}`)
    expect((rewrites()[1]!.body as { model: string }).model).toBe('gpt-4o-mini')
    // The embedding is of the rewritten query, not of the question…
    expect(embedded()).toContain(REWRITTEN)
    expect(embedded()).not.toContain(FOLLOW_UP)
    // …and the file only the rewrite matches comes first, in the context the reply read and its sources.
    expect((await sourcesOf(reply))[0]?.fileName).toBe('router.txt')
    const replyRequest = fake.requestsTo('/chat/completions').filter((r) => !isRewrite(r)).at(-1)!
    expect(JSON.stringify((replyRequest.body as ChatBody).messages)).toContain('[1] router.txt')
    // The reply keeps what was searched.
    expect(reply.meta?.knowledgeQuery).toBe(REWRITTEN)
    // The rewrite is in the usage log under its scene and the conversation.
    const logged = t.core.services().store.usage.list({}).filter((u) => u.scene === SCENE && u.conversationId === reply.conversationId)
    expect(logged).toHaveLength(2)
    expect(logged[0]).toMatchObject({ providerId: 'openai', modelId: 'gpt-4o-mini' })
    expect(logged.some((u) => u.usage?.totalTokens === 52)).toBe(true)
  })

  it('a failing rewrite (500) falls back to the question: the reply still completes', async () => {
    await chooseSceneModel(true)
    rewriteResponse = () => ({ kind: 'json', status: 500, body: errorBody('The server had an error', 'server_error', 'server_error') })
    try {
      const reply = await followUp()
      expect(rewrites().length).toBeGreaterThanOrEqual(2)
      expect(reply.status).toBe('complete')
      expect(reply.error).toBeUndefined()
      expect(embedded()).toContain(FOLLOW_UP)
      expect((await sourcesOf(reply)).length).toBeGreaterThan(0)
      expect(reply.meta?.knowledgeQuery).toBeUndefined()
    } finally {
      rewriteResponse = () => ({ kind: 'sse', chunks: chatChunks([REWRITTEN]) })
    }
  })

  it('a rewrite that stalls is given up after a few seconds and the question is searched as asked', async () => {
    await chooseSceneModel(true)
    rewriteResponse = () => ({ kind: 'sse', chunks: chatChunks(['How to']), stallAfter: 1 })
    try {
      const first = ok(await send({ agentId, text: FIRST }))
      const started = Date.now()
      const reply = ok(await send({ conversationId: first.conversationId, parentId: first.id, text: FOLLOW_UP }))
      expect(rewrites()).toHaveLength(2)
      expect(Date.now() - started).toBeLessThan(9000)
      expect(reply.status).toBe('complete')
      expect(embedded()).toContain(FOLLOW_UP)
    } finally {
      rewriteResponse = () => ({ kind: 'sse', chunks: chatChunks([REWRITTEN]) })
    }
  }, 30_000)
})
