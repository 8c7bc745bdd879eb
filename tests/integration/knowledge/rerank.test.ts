import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { rerankUrl } from '../../../src/core/knowledge/rerank'
import { hashedEmbeddingsReply } from '../../fixtures/fake-embeddings'
import { startFakeOpenAI, type FakeOpenAI } from '../../fixtures/fake-openai'
import { overlapScore, startFakeRerank, type FakeRerank } from '../../fixtures/fake-rerank'
import { ok, startCore, TOPICS, writeTree, type TestCore } from './helpers'

// Reranking (issue 22): a base's rerank model re-scores the fused candidates through the
// provider's /rerank endpoint (the format Jina, Cohere and SiliconCloud share), here a fake
// server on 127.0.0.1 that SiliconCloud's base address points at.
let fake: FakeOpenAI
let rerank: FakeRerank
let t: TestCore
let kbId: string
const QUERY = 'what is the office wifi password for the guest network'

beforeAll(async () => {
  fake = await startFakeOpenAI()
  fake.setDefault('/embeddings', hashedEmbeddingsReply())
  rerank = await startFakeRerank()
  t = await startCore(fake.url)
  ok(await t.client.call('providers.update', { providerId: 'siliconcloud', baseURL: `${rerank.origin}/v1` }))
  ok(await t.client.call('providers.setKey', { providerId: 'siliconcloud', apiKey: 'sk-rerank-test-0123456789' }))
  kbId = ok(await t.client.call('knowledge.create', { name: 'Everything', providerId: 'openai', modelId: 'text-embedding-3-small' })).id
  ok(await t.client.call('knowledge.addPaths', { kbId, paths: [writeTree(TOPICS)] }))
  await t.core.services().knowledge.idle(kbId)
})
afterAll(async () => {
  await t.core.close()
  await fake.close()
  await rerank.close()
})

describe('reranking with a provider rerank model', () => {
  it('without a rerank model nothing is called and hits keep the fused order', async () => {
    const hits = ok(await t.client.call('knowledge.search', { kbIds: [kbId], query: QUERY, topK: 5 }))
    expect(rerank.requests).toHaveLength(0)
    expect(hits.every((h) => h.rerankScore === undefined)).toBe(true)
  })

  it('with one: the fused candidates go to /rerank with the key, and the hits come back in its order', async () => {
    expect(ok(await t.client.call('knowledge.setRerank', { kbId, rerank: { providerId: 'siliconcloud', modelId: 'BAAI/bge-reranker-v2-m3' } }))).toMatchObject({ modelId: 'BAAI/bge-reranker-v2-m3' })
    expect(ok(await t.client.call('knowledge.list', {}))[0]!.rerank).toEqual({ providerId: 'siliconcloud', modelId: 'BAAI/bge-reranker-v2-m3' })
    rerank.mode = 'overlap'
    const hits = ok(await t.client.call('knowledge.search', { kbIds: [kbId], query: QUERY, topK: 5 }))
    const sent = rerank.requests.at(-1)!
    expect(sent.authorization).toBe('Bearer sk-rerank-test-0123456789')
    expect(sent.body).toMatchObject({ model: 'BAAI/bge-reranker-v2-m3', query: QUERY, top_n: 5 })
    expect(sent.body.documents.length).toBeGreaterThanOrEqual(5)
    // The order is the reranker's scores over what was sent.
    const expected = sent.body.documents.map((d, i) => ({ d, s: overlapScore(QUERY, d), i })).sort((a, b) => b.s - a.s || a.i - b.i).slice(0, 5)
    expect(hits.map((h) => h.text)).toEqual(expected.map((e) => e.d))
    expect(hits[0]!.fileName).toBe('wifi.txt')
    expect(hits.map((h) => h.rerankScore)).toEqual(expected.map((e) => e.s))
  })

  it('the reranker decides the order even against fusion: a reversing reranker puts the last candidate first', async () => {
    rerank.mode = 'reverse'
    const hits = ok(await t.client.call('knowledge.search', { kbIds: [kbId], query: QUERY, topK: 3 }))
    const docs = rerank.requests.at(-1)!.body.documents
    expect(hits.map((h) => h.text)).toEqual([docs.at(-1), docs.at(-2), docs.at(-3)])
  })

  it('a failing reranker costs only the order: the fused hits come back', async () => {
    rerank.mode = 'fail'
    const hits = ok(await t.client.call('knowledge.search', { kbIds: [kbId], query: QUERY, topK: 5 }))
    expect(hits).toHaveLength(5)
    expect(hits[0]!.fileName).toBe('wifi.txt')
    expect(hits.every((h) => h.rerankScore === undefined)).toBe(true)
    expect(t.core.services().knowledge.lastRerankError).toMatch(/500/)
  })

  it('null removes the rerank model; deleting the base forgets it', async () => {
    ok(await t.client.call('knowledge.setRerank', { kbId, rerank: null }))
    expect(ok(await t.client.call('knowledge.list', {}))[0]!.rerank).toBeUndefined()
    const other = ok(await t.client.call('knowledge.create', { name: 'Other', providerId: 'openai', modelId: 'text-embedding-3-small' })).id
    ok(await t.client.call('knowledge.setRerank', { kbId: other, rerank: { providerId: 'jina', modelId: 'jina-reranker-v2-base-multilingual' } }))
    ok(await t.client.call('knowledge.delete', { id: other }))
    expect(ok(await t.client.call('data.settings.get', {})).knowledgeRerank).toBeUndefined()
  })
})

describe('rerank addresses', () => {
  it('Jina, Cohere and SiliconCloud at their rerank hosts; a custom base gets /rerank', () => {
    expect(rerankUrl('jina', 'https://deepsearch.jina.ai/v1')).toBe('https://api.jina.ai/v1/rerank')
    expect(rerankUrl('cohere', undefined)).toBe('https://api.cohere.com/v2/rerank')
    expect(rerankUrl('siliconcloud', 'https://api.siliconflow.cn/v1/')).toBe('https://api.siliconflow.cn/v1/rerank')
    expect(rerankUrl('xinference', 'http://127.0.0.1:9997/v1')).toBe('http://127.0.0.1:9997/v1/rerank')
    expect(() => rerankUrl('openai', undefined)).toThrow(/no rerank address/)
  })
})
