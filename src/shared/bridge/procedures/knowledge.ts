import { z } from 'zod'
import { call, stream } from '../define'
import type {
  Dataset,
  DatasetRecord,
  EvalEvent,
  EvalRecordResult,
  KnowledgeBase,
  KnowledgeBaseSummary,
  KnowledgeEval,
  KnowledgeFile,
  SearchHit
} from '../../knowledge/types'
import type { RecordProblem } from '../../knowledge/schemas'
import { knowledgeEvalSchema } from '../../knowledge/schemas'

const id = z.string().min(1).max(200)
const kbId = z.string().regex(/^[0-9a-z]{1,64}$/, 'not a knowledge base id')
const chunkSize = z.number().int().min(100).max(20_000)
const chunkOverlap = z.number().int().min(0).max(5_000)
const patterns = z.array(z.string().min(1).max(500)).max(100)
const owner = z.object({ kind: z.enum(['agent', 'conversation']), id }).strict()

export const knowledgeProcedures = {
  /** Knowledge bases with their file counts by status. */
  'knowledge.list': call<KnowledgeBaseSummary[]>()(z.object({}).strict()),
  'knowledge.create': call<KnowledgeBase>()(
    z.object({ name: z.string().min(1).max(200), description: z.string().max(2000).optional(), providerId: id, modelId: id, chunkSize: chunkSize.optional(), chunkOverlap: chunkOverlap.optional() }).strict()
  ),
  /** Rename, or change settings (a new embedding model embeds everything again). */
  'knowledge.update': call<KnowledgeBase>()(
    z
      .object({ id: kbId, name: z.string().min(1).max(200).optional(), description: z.string().max(2000).optional(), providerId: id.optional(), modelId: id.optional(), chunkSize: chunkSize.optional(), chunkOverlap: chunkOverlap.optional() })
      .strict()
  ),
  'knowledge.delete': call<boolean>()(z.object({ id: kbId }).strict()),
  /** A base's rerank model (Jina / Cohere / SiliconCloud / any `/rerank` server), or null for none. */
  'knowledge.setRerank': call<{ providerId: string; modelId: string } | null>()(z.object({ kbId, rerank: z.object({ providerId: id, modelId: id }).strict().nullable() }).strict()),
  /** A base's files with their status, stage, progress and failure reason. */
  'knowledge.files': call<KnowledgeFile[]>()(z.object({ kbId }).strict()),
  /** Files and folders on this machine (folders recursively, filtered by include/exclude globs); how many were added and skipped. */
  'knowledge.addPaths': call<{ added: number; skipped: number }>()(
    z.object({ kbId, paths: z.array(z.string().min(1).max(4096)).min(1).max(1000), include: patterns.optional(), exclude: patterns.optional() }).strict()
  ),
  /** A web page read with the read-a-web-page tool, kept as Markdown. */
  'knowledge.addUrl': call<KnowledgeFile>()(z.object({ kbId, url: z.string().url().max(4096) }).strict()),
  /** A file picked in the page, uploaded first as a transfer (`files.transferCreate`/`transferAppend`, or `data/upload` in browser mode). */
  'knowledge.upload': call<KnowledgeFile>()(z.object({ kbId, name: z.string().min(1).max(500), transferId: z.string().min(8).max(64) }).strict()),
  'knowledge.removeFile': call<boolean>()(z.object({ fileId: id }).strict()),
  /** Process a failed or flagged file again. */
  'knowledge.retryFile': call<KnowledgeFile>()(z.object({ fileId: id }).strict()),
  /** Bases being indexed now, with the hub stream of each. */
  /** Hybrid retrieval (vectors + bm25, fused by rank). */
  'knowledge.search': call<SearchHit[]>()(z.object({ kbIds: z.array(kbId).min(1).max(50), query: z.string().min(1).max(10_000), topK: z.number().int().min(1).max(100).optional() }).strict()),
  /** Bases attached to an agent or a conversation. */
  'knowledge.attached': call<string[]>()(z.object({ owner }).strict()),
  'knowledge.attach': call<string[]>()(z.object({ owner, kbIds: z.array(kbId).max(50) }).strict()),
  // Evaluation
  'knowledge.datasets': call<Dataset[]>()(z.object({}).strict()),
  /** Imports records from CSV or JSONL; invalid records are reported by line and not imported. */
  'knowledge.importDataset': call<{ dataset: Dataset; problems: RecordProblem[] }>()(
    z.object({ name: z.string().min(1).max(200), format: z.enum(['csv', 'jsonl']), text: z.string().max(50_000_000), datasetId: z.number().int().optional() }).strict()
  ),
  'knowledge.datasetRecords': call<DatasetRecord[]>()(z.object({ datasetId: z.number().int() }).strict()),
  'knowledge.updateRecord': call<DatasetRecord>()(
    z.object({ id: z.number().int(), question: z.string().trim().min(1, 'question is required'), ideal: z.string().nullable().optional(), referenceFiles: z.array(z.string()).optional() }).strict()
  ),
  'knowledge.deleteRecord': call<boolean>()(z.object({ id: z.number().int() }).strict()),
  'knowledge.deleteDataset': call<boolean>()(z.object({ datasetId: z.number().int() }).strict()),
  /** Runs a dataset against a base: Pending → Processing → Success / Error, with progress. */
  'knowledge.runEval': stream<EvalEvent, KnowledgeEval>()(
    knowledgeEvalSchema
      .extend({ datasetId: z.number().int(), k: z.number().int().min(1).max(100).optional(), answerWith: z.object({ providerId: id, modelId: id }).strict().optional() })
      .strict()
  ),
  'knowledge.evals': call<KnowledgeEval[]>()(z.object({ knowledgeBaseId: kbId.optional() }).strict()),
  'knowledge.evalRecords': call<EvalRecordResult[]>()(z.object({ evalId: id }).strict())
} as const
