import type { Dataset, DatasetRecord, EvalRecordResult, KnowledgeEval, ProcessingStatus } from '../../../shared/knowledge/types'
import type { ParsedRecord } from '../../../shared/knowledge/dataset-import'
import type { StoreDb } from '../database'
import type { KbEvalRow } from '../schema'
import { notFound } from '../errors'
import { newId } from '../ids'

const evalFromRow = (r: KbEvalRow): KnowledgeEval => ({
  id: r.id,
  knowledgeBaseId: r.kb_id,
  datasetId: r.dataset_id,
  name: r.name,
  description: r.description,
  k: r.k,
  status: r.status as ProcessingStatus,
  done: r.done,
  total: r.total,
  recall: r.recall,
  mrr: r.mrr,
  correctness: (JSON.parse(r.settings) as { correctness?: number }).correctness ?? null,
  error: r.error,
  createdAt: r.created_at,
  updatedAt: r.updated_at
})

/** Datasets of questions and the eval runs over them. */
export class KnowledgeEvalsRepository {
  constructor(private readonly db: StoreDb) {}

  private get q() {
    return this.db.q
  }

  datasets(): Dataset[] {
    return this.db
      .all(
        this.q
          .selectFrom('kb_datasets as d')
          .selectAll('d')
          .select((eb) => eb.selectFrom('kb_dataset_records as r').select(eb.fn.countAll<number>().as('n')).whereRef('r.dataset_id', '=', 'd.id').as('n'))
          .orderBy('d.id')
      )
      .map((r) => ({ id: r.id, name: r.name, description: r.description, records: r.n ?? 0, createdAt: r.created_at }))
  }

  dataset(id: number): Dataset {
    const found = this.datasets().find((d) => d.id === id)
    if (!found) throw notFound('Dataset', String(id))
    return found
  }

  /** Adds records to a dataset (a new one unless `datasetId` is given), all or none. */
  addRecords(name: string, records: readonly ParsedRecord[], datasetId?: number): Dataset {
    const id = this.db.transaction(() => {
      const target = datasetId ?? this.db.first(this.q.insertInto('kb_datasets').values({ name, created_at: Date.now() }).returning('id'))!.id
      if (datasetId !== undefined) this.dataset(datasetId)
      for (const r of records) this.db.run(this.q.insertInto('kb_dataset_records').values({ dataset_id: target, question: r.question, ideal: r.ideal, reference_files: JSON.stringify(r.referenceFiles) }))
      return target
    })
    return this.dataset(id)
  }

  records(datasetId: number): DatasetRecord[] {
    return this.db
      .all(this.q.selectFrom('kb_dataset_records').selectAll().where('dataset_id', '=', datasetId).orderBy('id'))
      .map((r) => ({ id: r.id, datasetId: r.dataset_id, question: r.question, ideal: r.ideal, referenceFiles: JSON.parse(r.reference_files) as string[] }))
  }

  updateRecord(id: number, patch: { question: string; ideal?: string | null; referenceFiles?: string[] }): DatasetRecord {
    const row = this.db.first(this.q.selectFrom('kb_dataset_records').selectAll().where('id', '=', id))
    if (!row) throw notFound('Dataset record', String(id))
    this.db.run(
      this.q
        .updateTable('kb_dataset_records')
        .set({
          question: patch.question.trim(),
          ideal: patch.ideal === undefined ? row.ideal : patch.ideal,
          reference_files: patch.referenceFiles ? JSON.stringify(patch.referenceFiles) : row.reference_files
        })
        .where('id', '=', id)
    )
    return this.records(row.dataset_id).find((r) => r.id === id)!
  }

  deleteRecord(id: number): boolean {
    return this.db.run(this.q.deleteFrom('kb_dataset_records').where('id', '=', id)) > 0
  }

  deleteDataset(id: number): boolean {
    return this.db.run(this.q.deleteFrom('kb_datasets').where('id', '=', id)) > 0
  }

  createEval(input: { kbId: string; datasetId: number; name: string; description?: string; k: number; total: number }): KnowledgeEval {
    const id = newId()
    const now = Date.now()
    this.db.run(
      this.q.insertInto('kb_evals').values({
        id,
        kb_id: input.kbId,
        dataset_id: input.datasetId,
        name: input.name,
        description: input.description ?? '',
        k: input.k,
        status: 'Pending',
        total: input.total,
        created_at: now,
        updated_at: now
      })
    )
    return this.getEval(id)
  }

  getEval(id: string): KnowledgeEval {
    const row = this.db.first(this.q.selectFrom('kb_evals').selectAll().where('id', '=', id))
    if (!row) throw notFound('Eval', id)
    return evalFromRow(row)
  }

  evals(kbId?: string): KnowledgeEval[] {
    const rows = this.db.all(
      this.q
        .selectFrom('kb_evals')
        .selectAll()
        .$if(kbId !== undefined, (qb) => qb.where('kb_id', '=', kbId!))
        .orderBy('created_at')
    )
    return rows.map(evalFromRow)
  }

  setEval(id: string, patch: { status?: ProcessingStatus; done?: number; recall?: number | null; mrr?: number | null; correctness?: number | null; error?: string | null }): KnowledgeEval {
    const e = this.getEval(id)
    const settings = patch.correctness !== undefined ? JSON.stringify({ correctness: patch.correctness }) : JSON.stringify({ correctness: e.correctness ?? undefined })
    this.db.run(
      this.q
        .updateTable('kb_evals')
        .set({
          status: patch.status ?? e.status,
          done: patch.done ?? e.done,
          recall: patch.recall === undefined ? e.recall : patch.recall,
          mrr: patch.mrr === undefined ? e.mrr : patch.mrr,
          error: patch.error === undefined ? e.error : patch.error,
          settings,
          updated_at: Date.now()
        })
        .where('id', '=', id)
    )
    return this.getEval(id)
  }

  saveRecord(evalId: string, r: EvalRecordResult): void {
    this.db.run(
      this.q.replaceInto('kb_eval_records').values({
        eval_id: evalId,
        record_id: r.recordId,
        question: r.question,
        retrieved: JSON.stringify(r.retrieved),
        hit_rank: r.hitRank,
        recall: r.recall,
        reciprocal_rank: r.reciprocalRank,
        answer: r.answer,
        correct: r.correct === null ? null : r.correct ? 1 : 0
      })
    )
  }

  evalRecords(evalId: string): EvalRecordResult[] {
    return this.db.all(this.q.selectFrom('kb_eval_records').selectAll().where('eval_id', '=', evalId).orderBy('record_id')).map((r) => ({
      recordId: r.record_id,
      question: r.question,
      retrieved: JSON.parse(r.retrieved) as EvalRecordResult['retrieved'],
      hitRank: r.hit_rank,
      recall: r.recall,
      reciprocalRank: r.reciprocal_rank,
      answer: r.answer,
      correct: r.correct === null ? null : r.correct === 1
    }))
  }

  /** Runs left Processing by a crash end as Error (they are not resumable: a new run is cheap). */
  repairInterrupted(): number {
    return this.db.run(
      this.q
        .updateTable('kb_evals')
        .set({ status: 'Error', error: 'Switchboard closed while this eval ran.' })
        .where('status', 'in', ['Pending', 'Processing'])
    )
  }
}
