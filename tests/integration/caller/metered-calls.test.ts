import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadProviderModels } from '../../../src/shared/catalogue/loader'
import type { PricingUnitName } from '../../../src/shared/pricing/types'
import type { UsageKind, UsageLogEntry, UsageScene } from '../../../src/shared/data/usage-log'
import { hashedEmbeddingsReply } from '../../fixtures/fake-embeddings'
import { chatChunks, startFakeOpenAI, type FakeOpenAI, type RecordedRequest } from '../../fixtures/fake-openai'
import { startFakeRerank, type FakeRerank } from '../../fixtures/fake-rerank'
import { ok, startCore, TOPICS, writeTree, type TestCore } from '../knowledge/helpers'

// Every kind of model call writes one usage line with its kind and scene, priced from the
// catalogue's own entry for the model (per token, per character or per second, as it says),
// through the real SDKs against fake servers speaking the providers' wire formats.
let fake: FakeOpenAI
let rerank: FakeRerank
let t: TestCore

const TOKENS_PER_INPUT = 100

beforeAll(async () => {
  fake = await startFakeOpenAI()
  const vectors = hashedEmbeddingsReply()
  // The hashed vectors, with a usage that grows with the batch: the line must add up what the provider said.
  fake.setDefault('/embeddings', (req: RecordedRequest) => {
    const reply = vectors(req) as { kind: 'json'; body: Record<string, unknown> }
    const n = (req.body as { input: string[] }).input.length
    return { ...reply, body: { ...reply.body, usage: { prompt_tokens: n * TOKENS_PER_INPUT, total_tokens: n * TOKENS_PER_INPUT } } }
  })
  rerank = await startFakeRerank()
  t = await startCore(fake.url)
  ok(await t.client.call('providers.update', { providerId: 'siliconcloud', baseURL: `${rerank.origin}/v1` }))
  ok(await t.client.call('providers.setKey', { providerId: 'siliconcloud', apiKey: 'sk-rerank-test-0123456789' }))
})
afterAll(async () => {
  await t.core.close()
  await fake.close()
  await rerank.close()
})

/** The catalogue's price of `quantities` for one model: rate × quantity per the unit's own measure. */
async function cataloguePrice(providerId: string, modelId: string, quantities: Partial<Record<PricingUnitName, number>>): Promise<number | undefined> {
  const model = (await loadProviderModels(providerId)).find((m) => m.id === modelId)
  if (!model?.pricing) return undefined
  let total = 0
  for (const [name, quantity] of Object.entries(quantities)) {
    const unit = model.pricing.units.find((u) => u.name === name)
    if (!unit || unit.strategy !== 'fixed') throw new Error(`${modelId} has no fixed ${name} price`)
    total += (quantity * unit.rate) / (unit.unit === 'second' ? 1 : 1_000_000)
  }
  return total
}

const lines = (kind: UsageKind, scene?: UsageScene): UsageLogEntry[] => t.core.services().store.usage.list().filter((e) => e.kind === kind && (!scene || e.scene === scene))

/** The lines a step adds. */
async function added(kind: UsageKind, step: () => Promise<unknown>): Promise<UsageLogEntry[]> {
  const before = new Set(lines(kind).map((e) => e.id))
  await step()
  return lines(kind).filter((e) => !before.has(e.id))
}

describe('every model call is metered', () => {
  let kbId: string

  it('chat: a prompt is one chat line priced per input and output token', async () => {
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['Hi'], { usage: { prompt_tokens: 1200, completion_tokens: 300, total_tokens: 1500 } }) })
    const [line, ...more] = await added('chat', () => t.core.services().caller.text({ target: { providerId: 'openai', modelId: 'gpt-4o-mini' }, scene: 'Translator', messages: [{ role: 'user', content: 'hi' }] }))
    expect(more).toEqual([])
    expect(line).toMatchObject({ kind: 'chat', scene: 'Translator', providerId: 'openai', modelId: 'gpt-4o-mini' })
    expect(line!.cost!.total).toBeCloseTo((await cataloguePrice('openai', 'gpt-4o-mini', { textInput: 1200, textOutput: 300 }))!, 12)
  })

  it('title: a conversation title is a chat line under its scene', async () => {
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['A title'], { usage: { prompt_tokens: 80, completion_tokens: 4, total_tokens: 84 } }) })
    const [line, ...more] = await added('chat', () =>
      t.core.services().caller.text({ target: { providerId: 'openai', modelId: 'gpt-4o-mini' }, scene: 'Summary Topic Title', messages: [{ role: 'user', content: 'name this chat' }] })
    )
    expect(more).toEqual([])
    expect(line).toMatchObject({ kind: 'chat', scene: 'Summary Topic Title' })
    expect(line!.cost!.total).toBeCloseTo((await cataloguePrice('openai', 'gpt-4o-mini', { textInput: 80, textOutput: 4 }))!, 12)
  })

  it('connection test: Test connection is a priced chat line under Connectivity Checker', async () => {
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['h'], { usage: { prompt_tokens: 8, completion_tokens: 1, total_tokens: 9 } }) })
    const [line, ...more] = await added('chat', async () => ok(await t.client.call('providers.test', { providerId: 'openai', modelId: 'gpt-4o-mini' })))
    expect(more).toEqual([])
    expect(line).toMatchObject({ kind: 'chat', scene: 'Connectivity Checker', modelId: 'gpt-4o-mini' })
    expect(line!.cost!.total).toBeCloseTo((await cataloguePrice('openai', 'gpt-4o-mini', { textInput: 8, textOutput: 1 }))!, 12)
  })

  it('embeddings: a knowledge-base indexing run shows its embedding tokens and cost', async () => {
    const requestsBefore = fake.requestsTo('/embeddings').length
    const found = await added('embedding', async () => {
      kbId = ok(await t.client.call('knowledge.create', { name: 'Everything', providerId: 'openai', modelId: 'text-embedding-3-small' })).id
      ok(await t.client.call('knowledge.addPaths', { kbId, paths: [writeTree(TOPICS)] }))
      await t.core.services().knowledge.idle(kbId)
    })
    const sent = fake.requestsTo('/embeddings').slice(requestsBefore).reduce((n, r) => n + (r.body as { input: string[] }).input.length, 0)
    expect(sent).toBeGreaterThan(0)
    // One line per request the provider answered, all under indexing; together they are what it billed.
    expect(found).toHaveLength(fake.requestsTo('/embeddings').length - requestsBefore)
    expect(found.every((e) => e.scene === 'Knowledge Base Indexing' && e.modelId === 'text-embedding-3-small')).toBe(true)
    const tokens = found.reduce((n, e) => n + (e.usage?.totalTokens ?? 0), 0)
    expect(tokens).toBe(sent * TOKENS_PER_INPUT)
    const cost = found.reduce((n, e) => n + (e.cost?.total ?? 0), 0)
    expect(cost).toBeCloseTo((await cataloguePrice('openai', 'text-embedding-3-small', { textInput: tokens }))!, 12)
    // The Usage page's totals by kind have them.
    const byKind = ok(await t.client.call('data.usage.summary', { group: 'kind' })).find((r) => r.key === 'embedding')!
    expect(byKind.totalTokens).toBe(tokens)
    expect(byKind.cost).toBeCloseTo(cost, 12)
  })

  it('rerank: a search with a rerank model is one rerank line with the tokens the provider reported', async () => {
    ok(await t.client.call('knowledge.setRerank', { kbId, rerank: { providerId: 'siliconcloud', modelId: 'BAAI/bge-reranker-v2-m3' } }))
    const found = await added('rerank', async () => ok(await t.client.call('knowledge.search', { kbIds: [kbId], query: 'the office wifi password', topK: 5 })))
    expect(found).toHaveLength(1)
    const documents = rerank.requests.at(-1)!.body.documents.length
    expect(found[0]).toMatchObject({ kind: 'rerank', scene: 'Knowledge Base Search', providerId: 'siliconcloud', modelId: 'BAAI/bge-reranker-v2-m3' })
    // The fake answers usage.total_tokens = 10 per document, as Jina and SiliconCloud report it.
    expect(found[0]!.usage?.totalTokens).toBe(documents * 10)
    // The catalogue prices no rerank model: the line has the tokens and no invented cost.
    expect(await cataloguePrice('siliconcloud', 'BAAI/bge-reranker-v2-m3', {})).toBeUndefined()
    expect(found[0]!.cost).toBeUndefined()
    // The query's embedding is a line of its own, under search.
    expect(lines('embedding', 'Knowledge Base Search').length).toBeGreaterThan(0)
  })

  it('eval judge: the answer and the verdict are chat lines under Knowledge Base Evaluation', async () => {
    const imported = ok(await t.client.call('knowledge.importDataset', { name: 'One', format: 'jsonl', text: JSON.stringify({ question: 'What is the guest wifi password?', ideal: 'periwinkle giraffe', referenceFiles: 'wifi.txt' }) }))
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['periwinkle giraffe'], { usage: { prompt_tokens: 400, completion_tokens: 5, total_tokens: 405 } }) })
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['CORRECT'], { usage: { prompt_tokens: 60, completion_tokens: 1, total_tokens: 61 } }) })
    const found = await added('chat', async () => {
      const result = await new Promise<unknown>((resolve) =>
        t.client.stream('knowledge.runEval', { knowledgeBaseId: kbId, name: 'judged', datasetId: imported.dataset.id, k: 3, answerWith: { providerId: 'openai', modelId: 'gpt-4o-mini' } }, { onEvent: () => undefined, onEnd: resolve })
      )
      expect(result).toMatchObject({ ok: true, value: { correctness: 1 } })
    })
    expect(found.map((e) => e.scene)).toEqual(['Knowledge Base Evaluation', 'Knowledge Base Evaluation'])
    const total = found.reduce((n, e) => n + e.cost!.total, 0)
    expect(total).toBeCloseTo((await cataloguePrice('openai', 'gpt-4o-mini', { textInput: 460, textOutput: 6 }))!, 12)
  })

  it('speech out: read aloud is one speech line priced per million characters (tts-1)', async () => {
    const text = 'The guest network password is periwinkle giraffe. Ask at the desk for the staff one.'
    const [line, ...more] = await added('speech', () => t.core.services().speech.speak({ text, providerId: 'openai', modelId: 'tts-1', voice: 'alloy' }))
    expect(more).toEqual([])
    expect(fake.requestsTo('/audio/speech').at(-1)!.body).toMatchObject({ model: 'tts-1', input: text })
    expect(line).toMatchObject({ kind: 'speech', scene: 'Read Aloud', modelId: 'tts-1' })
    expect(line!.usage?.inputCharacters).toBe(text.length)
    expect(line!.cost!.total).toBeCloseTo((await cataloguePrice('openai', 'tts-1', { textInput: text.length }))!, 12)
  })

  it('speech in: dictation is one transcription line priced per second (whisper-1) or per token (gpt-4o-transcribe)', async () => {
    const audio = Buffer.from('OggS fake opus').toString('base64')
    fake.enqueue('/audio/transcriptions', { kind: 'json', body: { text: 'hello', usage: { type: 'duration', seconds: 42 } } })
    const [whisper] = await added('transcription', () => t.core.services().speech.transcribe({ audioBase64: audio, mimeType: 'audio/ogg', providerId: 'openai', modelId: 'whisper-1' }))
    expect(whisper).toMatchObject({ kind: 'transcription', scene: 'Dictation', modelId: 'whisper-1' })
    expect(whisper!.cost!.total).toBeCloseTo((await cataloguePrice('openai', 'whisper-1', { audioInput: 42 }))!, 12)

    fake.enqueue('/audio/transcriptions', {
      kind: 'json',
      body: { text: 'hello', usage: { type: 'tokens', input_tokens: 150, output_tokens: 20, total_tokens: 170, input_token_details: { audio_tokens: 140, text_tokens: 10 } } }
    })
    const [tokens] = await added('transcription', () => t.core.services().speech.transcribe({ audioBase64: audio, mimeType: 'audio/ogg', providerId: 'openai', modelId: 'gpt-4o-transcribe' }))
    expect(tokens!.cost!.total).toBeCloseTo((await cataloguePrice('openai', 'gpt-4o-transcribe', { audioInput: 140, textInput: 10, textOutput: 20 }))!, 12)
  })

  it('a failed call bills nothing and writes no line', async () => {
    fake.enqueue('/audio/speech', { kind: 'json', status: 400, body: { error: { message: 'bad voice', type: 'invalid_request_error' } } })
    const found = await added('speech', () => t.core.services().speech.speak({ text: 'hello there', providerId: 'openai', modelId: 'tts-1', voice: 'alloy' }).catch(() => undefined))
    expect(found).toEqual([])
  })
})
