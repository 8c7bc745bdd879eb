/** Knowledge bases: the shapes the core, the bridge, the CLI and the pages share. */

/** product.md §4: the evaluation/processing status. Files and evals both use it. */
export type ProcessingStatus = 'Pending' | 'Processing' | 'Success' | 'Error'
export const PROCESSING_STATUSES: readonly ProcessingStatus[] = ['Pending', 'Processing', 'Success', 'Error']

/** What a file is doing now, finer than its status (a 429 wait is `waiting`, never a failure). */
export type FileStage = 'queued' | 'reading' | 'chunking' | 'embedding' | 'waiting' | 'saving' | 'checking' | 'done' | 'failed'

export interface KnowledgeBase {
  id: string
  name: string
  description: string
  providerId: string
  modelId: string
  /** Fixed by the first vectors stored; every later batch must match it. */
  dimensions: number | null
  chunkSize: number
  chunkOverlap: number
  createdAt: number
  updatedAt: number
  /** The rerank model applied after fusion; absent: fused order. */
  rerank?: { providerId: string; modelId: string }
}

export interface KnowledgeBaseSummary extends KnowledgeBase {
  files: number
  chunks: number
  /** Files by status. */
  counts: Record<ProcessingStatus, number>
}

export interface KnowledgeFile {
  id: string
  kbId: string
  name: string
  /** Where it came from: a path on this machine, or `upload:<name>`. */
  source: string
  /** Under the data folder, `knowledge/<sha256>.<ext>`; null when it could not be read. */
  path: string | null
  sha256: string | null
  size: number
  status: ProcessingStatus
  stage: FileStage
  chunksTotal: number
  chunksDone: number
  /** 0–1. */
  progress: number
  /** Why it failed, in words a person can act on. */
  error: string | null
  /** Set when the self-check query built from the file's own text did not find it. */
  flagged: string | null
  createdAt: number
  updatedAt: number
}

export const DEFAULT_CHUNK_SIZE = 1200
export const DEFAULT_CHUNK_OVERLAP = 150

/**
 * A chunk as the chunker cuts it: a slice of the extracted text (exact character range), with
 * the heading path at its start ("Install > Linux", null before any heading) and, for PDFs, its
 * 1-based page. The repository stores exactly this.
 */
export interface Chunk {
  seq: number
  text: string
  heading: string | null
  page: number | null
  start: number
  end: number
}

/** A stored chunk with where it sits in its file. */
export interface ChunkInfo {
  chunkId: number
  kbId: string
  fileId: string
  fileName: string
  text: string
  heading: string | null
  page: number | null
  charStart: number
  charEnd: number
}

/** One retrieved chunk with where it sits in its file. */
export interface SearchHit extends ChunkInfo {
  /** Reciprocal-rank-fusion score (higher is better). */
  score: number
  /** 1-based ranks in each list, null when the chunk was not in it. */
  vectorRank: number | null
  textRank: number | null
  /** The rerank model's score, when the base reranks. */
  rerankScore?: number
}

/** A numbered source under a reply. */
export interface ReplySource {
  n: number
  kbId: string
  fileId: string
  fileName: string
  chunkId: number
  heading: string | null
  page: number | null
  charStart: number
  charEnd: number
  excerpt: string
  /** How retrieval scored it: the rerank model's score, else the fused score; absent on older replies. */
  score?: number
}

export type IndexEvent =
  | { type: 'file'; file: KnowledgeFile }
  | { type: 'waiting'; kbId: string; fileId: string; retryInMs: number; reason: string }
  | { type: 'idle'; kbId: string }

export interface IndexRunResult {
  kbId: string
  succeeded: number
  failed: number
  flagged: number
}

// Evaluation

export interface Dataset {
  id: number
  name: string
  description: string
  records: number
  createdAt: number
}

export interface DatasetRecord {
  id: number
  datasetId: number
  question: string
  ideal: string | null
  referenceFiles: string[]
}

export interface KnowledgeEval {
  id: string
  knowledgeBaseId: string
  datasetId: number
  name: string
  description: string
  k: number
  status: ProcessingStatus
  done: number
  total: number
  /** Mean recall@k over the records, 0–1. */
  recall: number | null
  mrr: number | null
  /** Share of answers judged correct, when answers were asked for. */
  correctness: number | null
  error: string | null
  createdAt: number
  updatedAt: number
}

export interface EvalRecordResult {
  recordId: number
  question: string
  retrieved: { fileName: string; chunkId: number; score: number }[]
  /** 1-based rank of the first retrieved chunk from a reference file. */
  hitRank: number | null
  recall: number
  reciprocalRank: number
  answer: string | null
  correct: boolean | null
}

export type EvalEvent = { type: 'progress'; eval: KnowledgeEval }
