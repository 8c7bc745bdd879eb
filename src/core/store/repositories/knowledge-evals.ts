import type { Dataset, DatasetRecord, EvalRecordResult, KnowledgeEval, ProcessingStatus } from '../../../shared/knowledge/types'
import type { ParsedRecord } from '../../../shared/knowledge/dataset-import'
import type { StoreDb } from '../database'
import { notFound } from '../errors'
import { newId } from '../ids'

interface EvalRow {
  id: string
  kb_id: string
  dataset_id: number
  name: string
  description: string
  k: number
  status: string
  done: number
  total: number
  recall: number | null
  mrr: number | null
  error: string | null
  settings: string
  created_at: number
  updated_at: number
}

const evalFromRow = (r: EvalRow): KnowledgeEval => ({
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

  private one<T>(sql: string, ...p: unknown[]) {
    return this.db.guard(() => this.db.prepare(sql).get(...p) as T | undefined)
  }
  private many<T>(sql: string, ...p: unknown[]) {
    return this.db.guard(() => this.db.prepare(sql).all(...p) as T[])
  }
  private exec(sql: string, ...p: unknown[]) {
    return this.db.guard(() => this.db.prepare(sql).run(...p))
  }

  datasets(): Dataset[] {
    return this.many<{ id: number; name: string; description: string; created_at: number; n: number }>(
      'SELECT d.*, (SELECT count(*) FROM kb_dataset_records r WHERE r.dataset_id = d.id) AS n FROM kb_datasets d ORDER BY d.id'
    ).map((r) => ({ id: r.id, name: r.name, description: r.description, records: r.n, createdAt: r.created_at }))
  }

  dataset(id: number): Dataset {
    const found = this.datasets().find((d) => d.id === id)
    if (!found) throw notFound('Dataset', String(id))
    return found
  }

  /** Adds records to a dataset (a new one unless `datasetId` is given), all or none. */
  addRecords(name: string, records: readonly ParsedRecord[], datasetId?: number): Dataset {
    const id = this.db.transaction(() => {
      const target = datasetId ?? Number(this.exec('INSERT INTO kb_datasets (name, created_at) VALUES (?, ?)', name, Date.now()).lastInsertRowid)
      if (datasetId !== undefined) this.dataset(datasetId)
      const insert = this.db.prepare('INSERT INTO kb_dataset_records (dataset_id, question, ideal, reference_files) VALUES (?, ?, ?, ?)')
      for (const r of records) insert.run(target, r.question, r.ideal, JSON.stringify(r.referenceFiles))
      return target
    })
    return this.dataset(id)
  }

  records(datasetId: number): DatasetRecord[] {
    return this.many<{ id: number; dataset_id: number; question: string; ideal: string | null; reference_files: string }>(
      'SELECT * FROM kb_dataset_records WHERE dataset_id = ? ORDER BY id',
      datasetId
    ).map((r) => ({ id: r.id, datasetId: r.dataset_id, question: r.question, ideal: r.ideal, referenceFiles: JSON.parse(r.reference_files) as string[] }))
  }

  updateRecord(id: number, patch: { question: string; ideal?: string | null; referenceFiles?: string[] }): DatasetRecord {
    const row = this.one<{ dataset_id: number; ideal: string | null; reference_files: string }>('SELECT * FROM kb_dataset_records WHERE id = ?', id)
    if (!row) throw notFound('Dataset record', String(id))
    this.exec(
      'UPDATE kb_dataset_records SET question = ?, ideal = ?, reference_files = ? WHERE id = ?',
      patch.question.trim(),
      patch.ideal === undefined ? row.ideal : patch.ideal,
      patch.referenceFiles ? JSON.stringify(patch.referenceFiles) : row.reference_files,
      id
    )
    return this.records(row.dataset_id).find((r) => r.id === id)!
  }

  deleteRecord(id: number): boolean {
    return this.exec('DELETE FROM kb_dataset_records WHERE id = ?', id).changes > 0
  }

  deleteDataset(id: number): boolean {
    return this.exec('DELETE FROM kb_datasets WHERE id = ?', id).changes > 0
  }

  createEval(input: { kbId: string; datasetId: number; name: string; description?: string; k: number; total: number }): KnowledgeEval {
    const id = newId()
    const now = Date.now()
    this.exec(
      "INSERT INTO kb_evals (id, kb_id, dataset_id, name, description, k, status, total, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'Pending', ?, ?, ?)",
      id,
      input.kbId,
      input.datasetId,
      input.name,
      input.description ?? '',
      input.k,
      input.total,
      now,
      now
    )
    return this.getEval(id)
  }

  getEval(id: string): KnowledgeEval {
    const row = this.one<EvalRow>('SELECT * FROM kb_evals WHERE id = ?', id)
    if (!row) throw notFound('Eval', id)
    return evalFromRow(row)
  }

  evals(kbId?: string): KnowledgeEval[] {
    const rows = kbId ? this.many<EvalRow>('SELECT * FROM kb_evals WHERE kb_id = ? ORDER BY created_at', kbId) : this.many<EvalRow>('SELECT * FROM kb_evals ORDER BY created_at')
    return rows.map(evalFromRow)
  }

  setEval(id: string, patch: { status?: ProcessingStatus; done?: number; recall?: number | null; mrr?: number | null; correctness?: number | null; error?: string | null }): KnowledgeEval {
    const e = this.getEval(id)
    const settings = patch.correctness !== undefined ? JSON.stringify({ correctness: patch.correctness }) : JSON.stringify({ correctness: e.correctness ?? undefined })
    this.exec(
      'UPDATE kb_evals SET status = ?, done = ?, recall = ?, mrr = ?, error = ?, settings = ?, updated_at = ? WHERE id = ?',
      patch.status ?? e.status,
      patch.done ?? e.done,
      patch.recall === undefined ? e.recall : patch.recall,
      patch.mrr === undefined ? e.mrr : patch.mrr,
      patch.error === undefined ? e.error : patch.error,
      settings,
      Date.now(),
      id
    )
    return this.getEval(id)
  }

  saveRecord(evalId: string, r: EvalRecordResult): void {
    this.exec(
      'INSERT OR REPLACE INTO kb_eval_records (eval_id, record_id, question, retrieved, hit_rank, recall, reciprocal_rank, answer, correct) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      evalId,
      r.recordId,
      r.question,
      JSON.stringify(r.retrieved),
      r.hitRank,
      r.recall,
      r.reciprocalRank,
      r.answer,
      r.correct === null ? null : r.correct ? 1 : 0
    )
  }

  evalRecords(evalId: string): EvalRecordResult[] {
    return this.many<{ record_id: number; question: string; retrieved: string; hit_rank: number | null; recall: number; reciprocal_rank: number; answer: string | null; correct: number | null }>(
      'SELECT * FROM kb_eval_records WHERE eval_id = ? ORDER BY record_id',
      evalId
    ).map((r) => ({
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
    return this.exec("UPDATE kb_evals SET status = 'Error', error = 'Switchboard closed while this eval ran.' WHERE status IN ('Pending', 'Processing')").changes
  }
}
