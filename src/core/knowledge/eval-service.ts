import { AppErrorException } from '../../shared/errors/app-error'
import { parseDataset } from '../../shared/knowledge/dataset-import'
import type { EvalEvent, EvalRecordResult, KnowledgeEval } from '../../shared/knowledge/types'
import type { KnowledgeEvalsRepository } from '../store/repositories/knowledge-evals'
import { mean, retrievalScores } from './eval-metrics'
import type { KnowledgeService } from './knowledge-service'

export interface EvalServiceDeps {
  evals: KnowledgeEvalsRepository
  knowledge: KnowledgeService
  /** One non-streamed answer from a chat model (for answers and the judge). */
  complete?(model: { providerId: string; modelId: string }, system: string, user: string, signal: AbortSignal): Promise<string>
}

export interface RunEvalInput {
  knowledgeBaseId: string
  datasetId: number
  name: string
  description?: string
  k?: number
  answerWith?: { providerId: string; modelId: string }
}

const JUDGE =
  'You grade an answer against the ideal answer. Reply with exactly one word: CORRECT if the answer states the same facts as the ideal (wording may differ), INCORRECT otherwise.'

/** Datasets and eval runs. An eval is a task of the stream hub (`knowledge.runEval`). */
export class EvalService {
  constructor(private readonly deps: EvalServiceDeps) {}

  // Datasets and past runs, as the evaluation page reads and edits them.
  datasets() {
    return this.deps.evals.datasets()
  }
  records(datasetId: number) {
    return this.deps.evals.records(datasetId)
  }
  updateRecord(id: number, patch: { question: string; ideal?: string | null; referenceFiles?: string[] }) {
    return this.deps.evals.updateRecord(id, patch)
  }
  deleteRecord(id: number) {
    return this.deps.evals.deleteRecord(id)
  }
  deleteDataset(id: number) {
    return this.deps.evals.deleteDataset(id)
  }
  evals(kbId?: string) {
    return this.deps.evals.evals(kbId)
  }
  evalRecords(evalId: string) {
    return this.deps.evals.evalRecords(evalId)
  }

  importDataset(input: { name: string; format: 'csv' | 'jsonl'; text: string; datasetId?: number }) {
    const parsed = parseDataset(input.text, input.format)
    if (parsed.records.length === 0)
      throw new AppErrorException({
        errorType: 'ValidationError',
        status: 400,
        message: `No valid records to import${parsed.problems[0] ? ` (line ${parsed.problems[0].line}: ${parsed.problems[0].message})` : ''}.`,
        detail: { problems: parsed.problems }
      })
    const dataset = this.deps.evals.addRecords(input.name, parsed.records, input.datasetId)
    return { dataset, problems: parsed.problems }
  }

  async *run(input: RunEvalInput, signal: AbortSignal): AsyncGenerator<EvalEvent, KnowledgeEval> {
    const { evals, knowledge } = this.deps
    knowledge.repo.require(input.knowledgeBaseId)
    const records = evals.records(input.datasetId)
    if (records.length === 0) throw new AppErrorException({ errorType: 'ValidationError', status: 400, message: 'The dataset has no records.' })
    const k = input.k ?? 5
    let run = evals.createEval({ kbId: input.knowledgeBaseId, datasetId: input.datasetId, name: input.name, description: input.description, k, total: records.length })
    yield { type: 'progress', eval: run }
    run = evals.setEval(run.id, { status: 'Processing' })
    yield { type: 'progress', eval: run }
    const recalls: number[] = []
    const rrs: number[] = []
    const judged: boolean[] = []
    try {
      for (const [i, record] of records.entries()) {
        if (signal.aborted) throw new Error('The eval was cancelled.')
        const hits = await knowledge.search({ kbIds: [input.knowledgeBaseId], query: record.question, topK: k }, signal)
        const scores = retrievalScores(hits.map((h) => h.fileName), record.referenceFiles, k)
        if (scores) {
          recalls.push(scores.recall)
          rrs.push(scores.reciprocalRank)
        }
        let answer: string | null = null
        let correct: boolean | null = null
        if (input.answerWith && this.deps.complete) {
          const context = hits.map((h, n) => `[${n + 1}] ${h.fileName}\n${h.text}`).join('\n\n')
          answer = await this.deps.complete(input.answerWith, `Answer the question from these sources only.\n\n${context}`, record.question, signal)
          if (record.ideal) {
            const verdict = await this.deps.complete(input.answerWith, JUDGE, `Question: ${record.question}\nIdeal: ${record.ideal}\nAnswer: ${answer}`, signal)
            correct = /^\W*correct\b/i.test(verdict.trim())
            judged.push(correct)
          }
        }
        const result: EvalRecordResult = {
          recordId: record.id,
          question: record.question,
          retrieved: hits.map((h) => ({ fileName: h.fileName, chunkId: h.chunkId, score: h.score })),
          hitRank: scores?.hitRank ?? null,
          recall: scores?.recall ?? 0,
          reciprocalRank: scores?.reciprocalRank ?? 0,
          answer,
          correct
        }
        evals.saveRecord(run.id, result)
        run = evals.setEval(run.id, { done: i + 1, recall: mean(recalls), mrr: mean(rrs), correctness: judged.length ? judged.filter(Boolean).length / judged.length : null })
        yield { type: 'progress', eval: run }
      }
      run = evals.setEval(run.id, { status: 'Success' })
    } catch (error) {
      run = evals.setEval(run.id, { status: 'Error', error: error instanceof AppErrorException ? error.error.message : error instanceof Error ? error.message : String(error) })
    }
    yield { type: 'progress', eval: run }
    return run
  }
}
