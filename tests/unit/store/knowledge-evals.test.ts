import { afterEach, describe, expect, it } from 'vitest'
import { KnowledgeEvalsRepository } from '../../../src/core/store/repositories/knowledge-evals'
import { KnowledgeRepository } from '../../../src/core/store/repositories/knowledge'
import { openTemp } from './helpers'

let env: ReturnType<typeof openTemp>
afterEach(() => env?.cleanup())

describe('knowledge evals repository (kysely on schema.ts)', () => {
  it('keeps datasets, their records and eval runs; deletes cascade; an interrupted run ends as Error', () => {
    env = openTemp()
    const evals = new KnowledgeEvalsRepository(env.store.db)
    const kb = new KnowledgeRepository(env.store.db).create({ name: 'Docs', providerId: 'openai', modelId: 'text-embedding-3-small', chunkSize: 512, chunkOverlap: 64 })
    const set = evals.addRecords('Questions', [
      { question: 'What is a wombat?', ideal: 'A marsupial', referenceFiles: ['animals.md'] },
      { question: 'Where do quokkas live?', ideal: null, referenceFiles: [] }
    ])
    expect(set).toMatchObject({ name: 'Questions', description: '', records: 2 })
    expect(evals.addRecords('ignored', [{ question: 'A third?', ideal: null, referenceFiles: [] }] as never, set.id).records).toBe(3)
    const [first, second] = evals.records(set.id)
    expect(first).toEqual({ id: first!.id, datasetId: set.id, question: 'What is a wombat?', ideal: 'A marsupial', referenceFiles: ['animals.md'] })
    expect(evals.updateRecord(second!.id, { question: '  Where?  ', referenceFiles: ['a.md'] })).toMatchObject({ question: 'Where?', ideal: null, referenceFiles: ['a.md'] })
    expect(evals.deleteRecord(second!.id)).toBe(true)
    expect(evals.deleteRecord(second!.id)).toBe(false)

    const run = evals.createEval({ kbId: kb.id, datasetId: set.id, name: 'Run 1', k: 5, total: 2 })
    expect(run).toMatchObject({ knowledgeBaseId: kb.id, datasetId: set.id, status: 'Pending', done: 0, total: 2, recall: null, correctness: null })
    evals.saveRecord(run.id, { recordId: first!.id, question: 'What is a wombat?', retrieved: [], hitRank: 1, recall: 1, reciprocalRank: 1, answer: 'A marsupial', correct: true })
    evals.saveRecord(run.id, { recordId: first!.id, question: 'What is a wombat?', retrieved: [], hitRank: null, recall: 0, reciprocalRank: 0, answer: null, correct: null })
    expect(evals.evalRecords(run.id)).toEqual([{ recordId: first!.id, question: 'What is a wombat?', retrieved: [], hitRank: null, recall: 0, reciprocalRank: 0, answer: null, correct: null }])
    expect(evals.setEval(run.id, { status: 'Processing', done: 1, recall: 0.5, correctness: 1 })).toMatchObject({ status: 'Processing', done: 1, recall: 0.5, mrr: null, correctness: 1 })
    const other = evals.createEval({ kbId: kb.id, datasetId: set.id, name: 'Run 2', k: 3, total: 2 })
    expect(evals.evals(kb.id).map((e) => e.id)).toEqual([run.id, other.id])
    expect(evals.evals('no-such-base')).toEqual([])
    expect(evals.repairInterrupted()).toBe(2)
    expect(evals.getEval(run.id)).toMatchObject({ status: 'Error', error: 'Switchboard closed while this eval ran.', correctness: 1 })

    expect(evals.deleteDataset(set.id)).toBe(true)
    expect(evals.datasets()).toEqual([])
    expect(evals.evals()).toEqual([])
    expect(evals.evalRecords(run.id)).toEqual([])
  })
})
