import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Message } from '../../../src/shared/data/message'
import type { Result } from '../../../src/shared/errors/app-error'
import type { KnowledgeEval } from '../../../src/shared/knowledge/types'
import { hashedEmbeddingsReply } from '../../fixtures/fake-embeddings'
import { chatChunks, startFakeOpenAI, type FakeOpenAI } from '../../fixtures/fake-openai'
import { ok, startCore, TOPICS, writeTree, type TestCore } from './helpers'
import { streamResult } from '../stream-result'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

// Chat and evals against one fake OpenAI: chat completions plus /embeddings answering with
// deterministic hashed n-gram vectors, so retrieval is real.
let fake: FakeOpenAI
let t: TestCore
let kbId: string

beforeAll(async () => {
  fake = await startFakeOpenAI()
  fake.setDefault('/embeddings', hashedEmbeddingsReply())
  t = await startCore(fake.url)
  const base = ok(await t.client.call('knowledge.create', { name: 'Everything', providerId: 'openai', modelId: 'text-embedding-3-small' }))
  kbId = base.id
  ok(await t.client.call('knowledge.addPaths', { kbId, paths: [writeTree(TOPICS)] }))
  await t.core.services().knowledge.idle(kbId)
})
afterAll(async () => {
  await t.core.close()
  await fake.close()
})

const send = (input: Record<string, unknown>): Promise<Result<Message>> =>
  new Promise((resolve) => t.client.stream('chat.send', input as never, { onEvent: () => undefined, onEnd: resolve, onRefused: (error) => resolve({ ok: false, error }) }))

describe('chat with an attached knowledge base', () => {
  it('retrieves before the reply, sends numbered sources as context, and keeps them under the reply', async () => {
    const agent = ok(await t.client.call('data.agents.create', { name: 'Office helper', systemPrompt: 'Be brief.' } as never)) as { id: string }
    expect(ok(await t.client.call('knowledge.attach', { owner: { kind: 'agent', id: agent.id }, kbIds: [kbId] }))).toEqual([kbId])
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['The password is periwinkle-giraffe-42 [1].']) })
    const reply = ok(await send({ agentId: agent.id, text: 'What is the office wifi password?', providerId: 'openai', modelId: 'gpt-4o-mini' }))
    const request = fake.requestsTo('/chat/completions').at(-2) ?? fake.requestsTo('/chat/completions').at(-1)
    const messages = (request!.body as { messages: { role: string; content: string }[] }).messages
    expect(messages[0]).toEqual({ role: 'system', content: 'Be brief.' })
    expect(messages[1]!.role).toBe('system')
    expect(messages[1]!.content).toMatch(/cite them inline as \[1\]/)
    expect(messages[1]!.content).toMatch(/\[1\] wifi\.txt\nThe office wifi password is periwinkle-giraffe-42/)
    // The sources are the reply's, as web citations are: in its grounding, streamed and stored.
    expect(reply.grounding?.knowledge).toEqual(t.core.services().store.messages.require(reply.id).grounding?.knowledge)
    const sources = t.core.services().store.messages.require(reply.id).grounding!.knowledge!
    expect(sources[0]).toMatchObject({ n: 1, fileName: 'wifi.txt', charStart: 0 })
    // Each source keeps how retrieval scored it (shown on hover), best first.
    expect(sources.every((s) => typeof s.score === 'number' && s.score > 0)).toBe(true)
    expect(sources[0]!.score).toBeGreaterThanOrEqual(sources.at(-1)!.score!)
    expect(sources.length).toBeGreaterThan(1)
  })

  it('a new chat can have bases attached with its first message, before it exists', async () => {
    const plain = ok(await t.client.call('data.agents.create', { name: 'New chat' } as never)) as { id: string }
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['Level minus two [1].']) })
    const reply = ok(await send({ agentId: plain.id, text: 'Where is visitor parking?', providerId: 'openai', modelId: 'gpt-4o-mini', knowledgeBaseIds: [kbId] }))
    expect(ok(await t.client.call('knowledge.attached', { owner: { kind: 'conversation', id: reply.conversationId } }))).toEqual([kbId])
    // The agent itself has none: only this conversation.
    expect(ok(await t.client.call('knowledge.attached', { owner: { kind: 'agent', id: plain.id } }))).toEqual([])
    const sources = t.core.services().store.messages.require(reply.id).grounding!.knowledge!
    expect(sources[0]).toMatchObject({ n: 1, fileName: 'parking.md' })
    // Detached again: the export test below counts the base's attachments.
    ok(await t.client.call('knowledge.attach', { owner: { kind: 'conversation', id: reply.conversationId }, kbIds: [] }))
  })

  it('a base that no longer exists is refused before the new chat is made', async () => {
    const before = ok(await t.client.call('chat.sidebar', {})).conversations.length
    const result = await send({ text: 'Where is visitor parking?', providerId: 'openai', modelId: 'gpt-4o-mini', knowledgeBaseIds: ['nosuchbase000000'] })
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.error.message).toMatch(/nosuchbase000000/)
    expect(ok(await t.client.call('chat.sidebar', {})).conversations.length).toBe(before)
  })

  it('a conversation without attached bases sends no knowledge context', async () => {
    const plain = ok(await t.client.call('data.agents.create', { name: 'Plain' } as never)) as { id: string }
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['Hi']) })
    ok(await send({ agentId: plain.id, text: 'hello', providerId: 'openai', modelId: 'gpt-4o-mini' }))
    const body = fake.requestsTo('/chat/completions').find((r) => JSON.stringify(r.body).includes('"hello"'))!.body as { messages: { content: string }[] }
    expect(JSON.stringify(body.messages)).not.toContain('numbered sources')
  })
})

describe('evals', () => {
  it('imports a 50-question dataset, reports problems by line, and an eval reports recall@5 and MRR', async () => {
    // 50 questions, each answered by one of the twelve files (paraphrased, not copied).
    const questions: [string, string][] = [
      ['How often should tomatoes be watered?', 'tomatoes.md'],
      ['When do I stake tomato vines?', 'tomatoes.md'],
      ['Do tomatoes like sun?', 'tomatoes.md'],
      ['When should roses be pruned?', 'roses.md'],
      ['Where do I cut a rose when pruning?', 'roses.md'],
      ['When to feed roses?', 'roses.md'],
      ['At what temperature is the sourdough loaf baked?', 'bread.md'],
      ['When do I feed the sourdough starter?', 'bread.md'],
      ['What pot is used for baking the bread?', 'bread.md'],
      ['How long does the bread bake covered?', 'bread.md'],
      ['What goes into green curry paste?', 'curry.txt'],
      ['Is galangal used in the curry?', 'curry.txt'],
      ['How is the curry paste made, in a mortar?', 'curry.txt'],
      ['Which leaves are in the green curry?', 'curry.txt'],
      ['What does Fushimi Inari have?', 'kyoto.md'],
      ['When should I visit the torii gates in Kyoto?', 'kyoto.md'],
      ['What colour are the Kyoto shrine gates?', 'kyoto.md'],
      ['Which tram goes through Alfama?', 'lisbon.md'],
      ['How are the Belém custard tarts best eaten?', 'lisbon.md'],
      ['What spice goes on the Lisbon tarts?', 'lisbon.md'],
      ['Which Lisbon neighbourhood does tram 28 climb?', 'lisbon.md'],
      ['How does the retry function back off?', 'retry.ts'],
      ['How many attempts does retry make?', 'retry.ts'],
      ['Does the retry helper use jitter?', 'retry.ts'],
      ['What is the wifi password at the office?', 'wifi.txt'],
      ['What is the guest network called?', 'wifi.txt'],
      ['Which wifi network do guests use?', 'wifi.txt'],
      ['Where is visitor parking?', 'parking.md'],
      ['Where do I validate my parking ticket?', 'parking.md'],
      ['Which level is visitor parking on?', 'parking.md'],
      ['How many hours a day do cats sleep?', 'cats.md'],
      ['At what frequency do cats purr?', 'cats.md'],
      ['Do cats purr between 25 and 150 hertz?', 'cats.md'],
      ['How much exercise does a border collie need?', 'dogs.md'],
      ['What games do border collies love?', 'dogs.md'],
      ['Which dog loves herding?', 'dogs.md'],
      ['What is the tallest volcano in the solar system?', 'mars.md'],
      ['How high is Olympus Mons?', 'mars.md'],
      ['On which planet is Olympus Mons?', 'mars.md'],
      ['Tomatoes: full sun or shade?', 'tomatoes.md'],
      ['Rose blooms: when to feed after the first flush?', 'roses.md'],
      ['Dutch oven baking time for sourdough?', 'bread.md'],
      ['Chillies in the green curry paste?', 'curry.txt'],
      ['Crowds at Fushimi Inari: best time?', 'kyoto.md'],
      ['Cinnamon on custard tarts in Belém?', 'lisbon.md'],
      ['Exponential backoff in the retry code?', 'retry.ts'],
      ['Periwinkle giraffe password?', 'wifi.txt'],
      ['Reception ticket validation for parking?', 'parking.md'],
      ['Sixteen hours of sleep: which animal?', 'cats.md'],
      ['Two hours of daily exercise: which dog?', 'dogs.md']
    ]
    expect(questions).toHaveLength(50)
    const jsonl = [...questions.map(([question, file]) => JSON.stringify({ question, referenceFiles: file })), JSON.stringify({ question: '  ', ideal: 'x' }), 'not json'].join('\n')
    const imported = ok(await t.client.call('knowledge.importDataset', { name: 'Fifty', format: 'jsonl', text: jsonl }))
    expect(imported.dataset.records).toBe(50)
    expect(imported.problems).toEqual([
      { line: 51, message: 'question: question is required' },
      { line: 52, message: 'not valid JSON' }
    ])

    const events: KnowledgeEval[] = []
    const run = await new Promise<Result<KnowledgeEval>>((resolve) =>
      t.client.stream('knowledge.runEval', { knowledgeBaseId: kbId, name: 'chunks 1200', datasetId: imported.dataset.id, k: 5 }, { onEvent: (e) => events.push(e.eval), onEnd: resolve })
    )
    const result = ok(run)
    expect(events[0]!.status).toBe('Pending')
    expect(events[1]!.status).toBe('Processing')
    expect(events.at(-1)!.status).toBe('Success')
    expect(events.map((e) => e.done)).toEqual([0, 0, ...Array.from({ length: 50 }, (_, i) => i + 1), 50])
    console.log(`recall@5 = ${result.recall!.toFixed(3)}, MRR = ${result.mrr!.toFixed(3)} over 50 questions`)
    expect(result.recall).toBeGreaterThanOrEqual(0.9)
    expect(result.mrr).toBeGreaterThan(0.7)
    const records = ok(await t.client.call('knowledge.evalRecords', { evalId: result.id }))
    expect(records).toHaveLength(50)
    expect(records[0]!.retrieved.length).toBe(5)
    expect(ok(await t.client.call('knowledge.evals', { knowledgeBaseId: kbId })).map((e) => e.id)).toContain(result.id)
  })

  it('validates with the spec rules: a record needs a question, datasetId is numeric', async () => {
    const csv = 'question,ideal,referenceFiles\n"What, with a comma?",yes,a.md;b.md\n,missing question,c.md\n'
    const imported = ok(await t.client.call('knowledge.importDataset', { name: 'CSV', format: 'csv', text: csv }))
    expect(imported.problems).toEqual([{ line: 3, message: 'question: question is required' }])
    const [record] = ok(await t.client.call('knowledge.datasetRecords', { datasetId: imported.dataset.id }))
    expect(record).toMatchObject({ question: 'What, with a comma?', ideal: 'yes', referenceFiles: ['a.md', 'b.md'] })
    const bad = await t.client.call('knowledge.datasetRecords', { datasetId: 'one' } as never)
    expect(bad).toMatchObject({ ok: false, error: { errorType: 'ValidationError' } })
    const empty = await t.client.call('knowledge.updateRecord', { id: record!.id, question: '   ' })
    expect(empty).toMatchObject({ ok: false, error: { message: expect.stringMatching(/question is required/) } })
    expect(ok(await t.client.call('knowledge.updateRecord', { id: record!.id, question: 'Edited?' })).question).toBe('Edited?')
  })
})

describe('export and import', () => {
  it('carries knowledge bases with their files and attachments; the importing app indexes them again', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'sb-kb-export-')), 'export.json')
    ok(await streamResult(t.client, 'data.exportFile', { path }))
    const file = JSON.parse(readFileSync(path, 'utf8')) as { data: { knowledgeBases: { id: string; files: unknown[]; attachedTo: unknown[] }[] } }
    const mine = file.data.knowledgeBases.find((b) => b.id === kbId)!
    expect(mine.files).toHaveLength(Object.keys(TOPICS).length)
    expect(mine.attachedTo).toHaveLength(1)

    const other = await startCore(fake.url)
    try {
      ok(await streamResult(other.client, 'data.importFile', { path }))
      await other.core.services().knowledge.idle(kbId)
      const files = ok(await other.client.call('knowledge.files', { kbId }))
      expect(files.map((f) => f.status)).toEqual(files.map(() => 'Success'))
      const [hit] = ok(await other.client.call('knowledge.search', { kbIds: [kbId], query: 'tallest volcano', topK: 1 }))
      expect(hit!.fileName).toBe('mars.md')
      // Importing again adds nothing (import never overwrites).
      ok(await streamResult(other.client, 'data.importFile', { path }))
      expect(ok(await other.client.call('knowledge.list', {}))).toHaveLength(1)
    } finally {
      await other.core.close()
    }
  })
})

describe('LLM-judged answers', () => {
  it('answers each question from the retrieved sources and judges it against ideal', async () => {
    const imported = ok(
      await t.client.call('knowledge.importDataset', {
        name: 'Judged',
        format: 'jsonl',
        text: [JSON.stringify({ question: 'How high is Olympus Mons?', ideal: 'About 22 km', referenceFiles: ['mars.md'] }), JSON.stringify({ question: 'What is the wifi password?', ideal: 'periwinkle-giraffe-42', referenceFiles: 'wifi.txt' })].join('\n')
      })
    )
    const usage = { prompt_tokens: 1000, completion_tokens: 10, total_tokens: 1010 }
    fake.enqueue(
      '/chat/completions',
      { kind: 'sse', chunks: chatChunks(['About 22 kilometres.'], { usage }) },
      { kind: 'sse', chunks: chatChunks(['CORRECT'], { usage }) },
      { kind: 'sse', chunks: chatChunks(['I do not know.'], { usage }) },
      { kind: 'sse', chunks: chatChunks(['INCORRECT'], { usage }) }
    )
    const before = ok(await t.client.call('data.usage.list', { scene: 'Knowledge Base Evaluation' })).length
    const run = ok(
      await new Promise<Result<KnowledgeEval>>((resolve) =>
        t.client.stream('knowledge.runEval', { knowledgeBaseId: kbId, name: 'judged', datasetId: imported.dataset.id, answerWith: { providerId: 'openai', modelId: 'gpt-4o-mini' } }, { onEvent: () => undefined, onEnd: resolve })
      )
    )
    expect(run).toMatchObject({ status: 'Success', correctness: 0.5, recall: 1 })
    const records = ok(await t.client.call('knowledge.evalRecords', { evalId: run.id }))
    expect(records.map((r) => [r.answer, r.correct])).toEqual([
      ['About 22 kilometres.', true],
      ['I do not know.', false]
    ])
    // The answering model read the numbered sources; the judge saw the ideal.
    const bodies = fake.requestsTo('/chat/completions').slice(-4).map((r) => JSON.stringify(r.body))
    expect(bodies[0]).toContain('[1] mars.md')
    expect(bodies[1]).toContain('Ideal: About 22 km')
    // The answers and the judge are model calls like any other: each is in Usage, priced.
    const logged = ok(await t.client.call('data.usage.list', { scene: 'Knowledge Base Evaluation' }))
    expect(logged.length - before).toBe(4)
    for (const entry of logged.slice(0, 4)) {
      expect(entry).toMatchObject({ providerId: 'openai', modelId: 'gpt-4o-mini', usage: { totalInputTokens: 1000 } })
      expect(entry.cost?.total).toBeGreaterThan(0)
    }
  })
})
