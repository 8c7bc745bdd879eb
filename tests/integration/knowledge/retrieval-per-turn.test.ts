import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Message } from '../../../src/shared/data/message'
import type { Result } from '../../../src/shared/errors/app-error'
import { hashedEmbeddingsReply } from '../../fixtures/fake-embeddings'
import { startFakeOpenAI, type FakeOpenAI } from '../../fixtures/fake-openai'
import { startFakeToolProvider, type FakeToolProvider } from '../../fixtures/fake-tool-provider'
import { ok, startCore, TOPICS, writeTree, type TestCore } from './helpers'

// A reply with tools is several model calls (issue 21); the knowledge it reads is retrieved once
// per user turn (issue 22), and every call of the turn reads the same numbered sources, which the
// answer keeps. Embeddings from one fake (OpenAI format), the model from another (Anthropic).
let embeddings: FakeOpenAI
let model: FakeToolProvider
let searx: Server
let t: TestCore
const QUESTION = 'What is the office wifi password?'

beforeAll(async () => {
  embeddings = await startFakeOpenAI()
  embeddings.setDefault('/embeddings', hashedEmbeddingsReply())
  model = await startFakeToolProvider((turn) =>
    turn.results.length ? { text: 'It is periwinkle-giraffe-42 [1].' } : { calls: [{ name: 'web_search', args: { query: 'office wifi' } }] }
  )
  searx = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ results: [{ url: 'https://example.org/wifi', title: 'Wifi', content: 'x' }] })))
  await new Promise<void>((r) => searx.listen(0, '127.0.0.1', r))
  t = await startCore(embeddings.url)
  ok(await t.client.call('providers.update', { providerId: 'anthropic', baseURL: model.origin }))
  ok(await t.client.call('providers.setKey', { providerId: 'anthropic', apiKey: 'sk-ant-turn-0123456789' }))
  const kbId = ok(await t.client.call('knowledge.create', { name: 'Notes', providerId: 'openai', modelId: 'text-embedding-3-small' })).id
  ok(await t.client.call('knowledge.addPaths', { kbId, paths: [writeTree(TOPICS)] }))
  await t.core.services().knowledge.idle(kbId)
  const agentId = ok(await t.client.call('chat.sidebar', {})).defaultAgentId
  ok(await t.client.call('knowledge.attach', { owner: { kind: 'agent', id: agentId }, kbIds: [kbId] }))
  ok(await t.client.call('tools.updateSettings', { search: { provider: 'searxng', url: `http://127.0.0.1:${(searx.address() as AddressInfo).port}` } }))
  ok(await t.client.call('tools.setAgentTools', { agentId, servers: [], builtins: ['web_search'] }))
  ok(await t.client.call('tools.setApproval', { serverId: 'builtin', tool: 'web_search', mode: 'allow' }))
})
afterAll(async () => {
  await t.core.close()
  await embeddings.close()
  await model.close()
  await new Promise<void>((r) => searx.close(() => r()))
})

describe('knowledge in a reply with tools', () => {
  it('is retrieved once for the turn; every step reads the same sources and the answer keeps them', async () => {
    const before = embeddings.requestsTo('/embeddings').length
    const result = await new Promise<Result<Message>>((resolve) =>
      t.client.stream('chat.send', { text: QUESTION, providerId: 'anthropic', modelId: 'claude-sonnet-4-5' }, { onEvent: () => undefined, onEnd: resolve })
    )
    const answer = ok(result)
    const turns = model.turns.filter((x) => x.userText === QUESTION)
    expect(turns).toHaveLength(2)
    // Both model calls carried the numbered sources…
    for (const turn of turns) expect(JSON.stringify(turn.body['system'])).toContain('[1] wifi.txt')
    // …from one retrieval: the question was embedded once.
    const questionEmbeds = embeddings.requestsTo('/embeddings').slice(before).filter((r) => JSON.stringify(r.body).includes(QUESTION))
    expect(questionEmbeds).toHaveLength(1)
    // Every step of the turn carries the same sources in its grounding.
    const stored = (id: string) => t.core.services().store.messages.require(id).grounding?.knowledge
    expect(stored(answer.id)?.[0]).toMatchObject({ n: 1, fileName: 'wifi.txt' })
    expect(stored(answer.parentId!)?.[0]).toMatchObject({ n: 1, fileName: 'wifi.txt' })
  })
})
