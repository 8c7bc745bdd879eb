import type {
  FileStage,
  KnowledgeBase,
  KnowledgeBaseSummary,
  KnowledgeFile,
  ProcessingStatus,
  ReplySource,
  Chunk,
  ChunkInfo
} from '../../../shared/knowledge/types'
import type { StoreDb } from '../database'
import { notFound, storeError } from '../errors'
import { newId } from '../ids'
import { requireVectors } from '../vector-extension'
import { SignIndex } from './sign-index'

interface KbRow {
  id: string
  name: string
  description: string
  provider_id: string
  model_id: string
  dimensions: number | null
  chunk_size: number
  chunk_overlap: number
  created_at: number
  updated_at: number
}

interface FileRow {
  id: string
  kb_id: string
  name: string
  source: string
  path: string | null
  sha256: string | null
  size: number
  status: string
  stage: string
  chunked: number
  chunks_total: number
  chunks_done: number
  error: string | null
  flagged: string | null
  created_at: number
  updated_at: number
}

/** What the chunker cuts is what is stored. */
export type ChunkInput = Chunk
export type { ChunkInfo }

const kbFromRow = (r: KbRow): KnowledgeBase => ({
  id: r.id,
  name: r.name,
  description: r.description,
  providerId: r.provider_id,
  modelId: r.model_id,
  dimensions: r.dimensions,
  chunkSize: r.chunk_size,
  chunkOverlap: r.chunk_overlap,
  createdAt: r.created_at,
  updatedAt: r.updated_at
})

const fileFromRow = (r: FileRow): KnowledgeFile => ({
  id: r.id,
  kbId: r.kb_id,
  name: r.name,
  source: r.source,
  path: r.path,
  sha256: r.sha256,
  size: r.size,
  status: r.status as ProcessingStatus,
  stage: r.stage as FileStage,
  chunksTotal: r.chunks_total,
  chunksDone: r.chunks_done,
  progress: r.status === 'Success' ? 1 : r.chunks_total > 0 ? r.chunks_done / r.chunks_total : 0,
  error: r.error,
  flagged: r.flagged,
  createdAt: r.created_at,
  updatedAt: r.updated_at
})

/** vec0 fixes the dimension per table, so each knowledge base has its own. Ids are [0-9a-z]{16}. */
export const vectorTable = (kbId: string): string => {
  if (!/^[0-9a-z]{1,64}$/.test(kbId)) throw storeError('ValidationError', `Not a knowledge base id: ${JSON.stringify(kbId)}`, 400)
  return `kb_vec_${kbId}`
}

const toBlob = (vector: readonly number[]): Buffer => Buffer.from(new Float32Array(vector).buffer)

/** Sign bits of a vector, padded to whole bytes: the coarse vector sqlite-vec searches by Hamming distance. */
export function signBits(vector: ArrayLike<number>): Buffer {
  const out = Buffer.alloc(Math.ceil(vector.length / 8))
  for (let i = 0; i < vector.length; i++) if (vector[i]! > 0) out[i >> 3]! |= 1 << (i & 7)
  return out
}

const bitWidth = (dims: number) => Math.ceil(dims / 8) * 8

/** Cosine distance of a query (normalised here) and a stored float32 blob. */
function cosineDistance(query: Float32Array, queryNorm: number, blob: Buffer): number {
  const v = new Float32Array(blob.buffer, blob.byteOffset, blob.byteLength / 4)
  let dot = 0
  let norm = 0
  for (let i = 0; i < v.length; i++) {
    dot += query[i]! * v[i]!
    norm += v[i]! * v[i]!
  }
  return 1 - dot / (queryNorm * Math.sqrt(norm) || 1)
}

/**
 * Coarse candidates per wanted result: Hamming ranks of sign bits are rough, the exact re-rank
 * fixes the order. 2,048 candidates give recall@10 of 0.89–0.97 against exact search on random
 * 768-dimension vectors (the hardest case; 128 gave 0.41–0.48) for ~10 ms more at 100,000 chunks.
 */
const OVERSAMPLE = 4
const MIN_CANDIDATES = 2048
/** Inside a transaction (the self-check) candidates come from vec0's own scan, which slows with k. */
const IN_TRANSACTION_CANDIDATES = 256

/** The words of a query as the FTS5 index sees them (lower case, two characters or more), at most 64. */
export const queryWords = (text: string): string[] => [...new Set(text.toLowerCase().match(/[\p{L}\p{N}_]{2,}/gu) ?? [])].slice(0, 64)

/** An FTS5 query that matches any of the words (bm25 ranks documents with more of them higher). */
export function ftsQuery(text: string | readonly string[]): string | undefined {
  const words = typeof text === 'string' ? queryWords(text) : text
  return words.length ? words.map((w) => `"${w}"`).join(' OR ') : undefined
}

/**
 * How many chunks a keyword query may rank, summed over its words' posting lists. bm25 reads
 * every matching chunk's length, so a query of common words over a large base costs as much as
 * the base; the rarest words carry the ranking anyway (their idf is highest).
 */
export const KEYWORD_POSTINGS_BUDGET = 4000
const KEYWORD_MAX_WORDS = 16

/**
 * The words worth ranking by: rarest first, while their chunk counts add up to the budget (the
 * rarest always stays). Words the index does not hold cost nothing and stay: a diacritic or a
 * spelling the tokenizer folds may still match.
 */
export function pickKeywordWords(words: readonly string[], docs: ReadonlyMap<string, number>, budget = KEYWORD_POSTINGS_BUDGET): string[] {
  const picked = words.filter((w) => !docs.has(w)).slice(0, KEYWORD_MAX_WORDS)
  const known = words.filter((w) => docs.has(w)).sort((a, b) => docs.get(a)! - docs.get(b)! || a.localeCompare(b))
  let spent = 0
  for (const [i, word] of known.entries()) {
    const cost = docs.get(word)!
    if (i > 0 && (spent + cost > budget || picked.length >= KEYWORD_MAX_WORDS)) break
    picked.push(word)
    spent += cost
  }
  return picked
}

/**
 * English function words: they occur in nearly every chunk, so they rank nearly every chunk and
 * tell nothing about the question. "it" and "us" are left in (IT, US). Other languages' function
 * words are caught by how many chunks hold them (COMMON_SHARE).
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  ('about above after again against all am an and any are as at be because been before being below between both but by can could ' +
    'did do does doing down during each few for from further had has have having he her here hers herself him himself his how if in ' +
    'into is its itself just me more most my myself no nor not now of off on once only or other our ours ourselves out over own same ' +
    'she should so some such than that the their theirs them themselves then there these they this those through to too under until ' +
    'up very was we were what when where which while who whom why with would you your yours yourself yourselves tell please know')
    .split(' ')
)

/** A word held by more than this share of the chunks is as common as a function word here. */
export const COMMON_SHARE = 0.5
/** Below this many chunks, shares say little and only the function words are dropped. */
const COMMON_MIN_CHUNKS = 8

/**
 * The words of a query that carry information: function words out, then words that more than
 * half of the chunks hold. When that would leave nothing, the words before that step are kept (a
 * question of common words still asks something).
 */
export function informativeWords(words: readonly string[], docs: ReadonlyMap<string, number>, totalChunks: number): string[] {
  const content = words.filter((w) => !STOP_WORDS.has(w))
  const kept = content.length ? content : [...words]
  if (totalChunks < COMMON_MIN_CHUNKS) return kept
  const specific = kept.filter((w) => (docs.get(w) ?? 0) <= totalChunks * COMMON_SHARE)
  return specific.length ? specific : kept
}

/**
 * A query word held by this many chunks of a base or fewer is a rare term: its chunks are what
 * an exact question is after, and fusion must keep them whatever the vectors say.
 */
export const RARE_TERM_CHUNKS = 3
/** How many of a query's rarest words are checked for being rare in the base. */
const RARE_TERM_WORDS = 3

/** Keyword evidence of one base: bm25 hits (score > 0, higher is better) and the chunks of rare terms. */
export interface KeywordEvidence {
  hits: { chunkId: number; score: number }[]
  /** Chunks holding a rare query term, the rarest term's first. */
  rare: number[]
}

/**
 * Knowledge bases, their files, chunks and vectors, attachments and reply sources. Raw SQL on
 * purpose: vec0 and FTS5 queries are not what a query builder is for, and retrieval is hot.
 */
export class KnowledgeRepository {
  constructor(private readonly db: StoreDb) {}

  /**
   * Per base, its sign bits in memory for the k-NN candidate scan; dropped by any vec0 write of
   * this connection, and not used once another connection has written the file (SQLite's
   * `data_version` moved): a backup restored in place is written by the backup's own connection.
   */
  private readonly signIndexes = new Map<string, SignIndex>()
  private signIndexesVersion = -1
  /** Whether this connection's temp fts5vocab table exists (see termDocs). */
  private vocabMade = false

  private get sqlite() {
    return this.db.sqlite
  }

  private one<T>(sql: string, ...params: unknown[]): T | undefined {
    return this.db.guard(() => this.db.prepare(sql).get(...params) as T | undefined)
  }
  private many<T>(sql: string, ...params: unknown[]): T[] {
    return this.db.guard(() => this.db.prepare(sql).all(...params) as T[])
  }
  private exec(sql: string, ...params: unknown[]): number {
    return this.db.guard(() => this.db.prepare(sql).run(...params).changes)
  }

  // Knowledge bases

  create(input: { name: string; description?: string; providerId: string; modelId: string; chunkSize: number; chunkOverlap: number; id?: string }): KnowledgeBase {
    requireVectors(this.sqlite)
    const now = Date.now()
    const id = input.id ?? newId()
    this.exec(
      'INSERT INTO knowledge_bases (id, name, description, provider_id, model_id, dimensions, chunk_size, chunk_overlap, created_at, updated_at) VALUES (?, ?, ?, ?, ?, NULL, ?, ?, ?, ?)',
      id,
      input.name,
      input.description ?? '',
      input.providerId,
      input.modelId,
      input.chunkSize,
      input.chunkOverlap,
      now,
      now
    )
    return this.require(id)
  }

  get(id: string): KnowledgeBase | undefined {
    const row = this.one<KbRow>('SELECT * FROM knowledge_bases WHERE id = ?', id)
    return row ? kbFromRow(row) : undefined
  }

  require(id: string): KnowledgeBase {
    const kb = this.get(id)
    if (!kb) throw notFound('Knowledge base', id)
    return kb
  }

  list(): KnowledgeBaseSummary[] {
    const rows = this.many<KbRow>('SELECT * FROM knowledge_bases ORDER BY created_at')
    const counts = this.many<{ kb_id: string; status: ProcessingStatus; n: number; chunks: number }>(
      'SELECT kb_id, status, count(*) AS n, sum(chunks_total) AS chunks FROM kb_files GROUP BY kb_id, status'
    )
    return rows.map((row) => {
      const mine = counts.filter((c) => c.kb_id === row.id)
      const by = { Pending: 0, Processing: 0, Success: 0, Error: 0 } as Record<ProcessingStatus, number>
      for (const c of mine) by[c.status] = c.n
      return {
        ...kbFromRow(row),
        files: mine.reduce((a, c) => a + c.n, 0),
        chunks: mine.filter((c) => c.status === 'Success').reduce((a, c) => a + (c.chunks ?? 0), 0),
        counts: by
      }
    })
  }

  update(id: string, patch: Partial<Pick<KnowledgeBase, 'name' | 'description' | 'providerId' | 'modelId' | 'chunkSize' | 'chunkOverlap'>>): KnowledgeBase {
    const kb = this.require(id)
    const next = { ...kb, ...patch }
    this.exec(
      'UPDATE knowledge_bases SET name = ?, description = ?, provider_id = ?, model_id = ?, chunk_size = ?, chunk_overlap = ?, updated_at = ? WHERE id = ?',
      next.name,
      next.description,
      next.providerId,
      next.modelId,
      next.chunkSize,
      next.chunkOverlap,
      Date.now(),
      id
    )
    return this.require(id)
  }

  delete(id: string): boolean {
    return this.db.transaction(() => {
      this.dropVectors(id)
      this.exec('DELETE FROM kb_chunks_fts WHERE kb_id = ?', id)
      this.exec('DELETE FROM kb_chunks WHERE kb_id = ?', id)
      return this.exec('DELETE FROM knowledge_bases WHERE id = ?', id) > 0
    })
  }

  private dropVectors(kbId: string): void {
    this.signIndexes.delete(kbId)
    requireVectors(this.sqlite)
    this.sqlite.exec(`DROP TABLE IF EXISTS ${vectorTable(kbId)}`)
  }

  /**
   * Everything goes back to be embedded again (the model changed): vectors and the text index
   * are dropped, chunks are kept (the text did not change), files become Pending.
   */
  resetEmbeddings(kbId: string): void {
    this.db.transaction(() => {
      this.dropVectors(kbId)
      this.exec('DELETE FROM kb_chunks_fts WHERE kb_id = ?', kbId)
      this.exec('UPDATE kb_chunks SET embedding = NULL WHERE kb_id = ?', kbId)
      this.exec('UPDATE knowledge_bases SET dimensions = NULL, updated_at = ? WHERE id = ?', Date.now(), kbId)
      this.exec(
        "UPDATE kb_files SET status = 'Pending', stage = 'queued', chunks_done = 0, flagged = NULL, updated_at = ? WHERE kb_id = ? AND status != 'Error'",
        Date.now(),
        kbId
      )
    })
  }

  // Files

  addFile(input: { kbId: string; name: string; source: string; path: string | null; sha256: string | null; size: number; status: ProcessingStatus; stage: FileStage; error?: string }): KnowledgeFile {
    const now = Date.now()
    const id = newId()
    this.exec(
      'INSERT INTO kb_files (id, kb_id, name, source, path, sha256, size, status, stage, error, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      id,
      input.kbId,
      input.name,
      input.source,
      input.path,
      input.sha256,
      input.size,
      input.status,
      input.stage,
      input.error ?? null,
      now,
      now
    )
    return this.requireFile(id)
  }

  getFile(id: string): KnowledgeFile | undefined {
    const row = this.one<FileRow>('SELECT * FROM kb_files WHERE id = ?', id)
    return row ? fileFromRow(row) : undefined
  }

  requireFile(id: string): KnowledgeFile {
    const file = this.getFile(id)
    if (!file) throw notFound('File', id)
    return file
  }

  isChunked(id: string): boolean {
    return (this.one<{ chunked: number }>('SELECT chunked FROM kb_files WHERE id = ?', id)?.chunked ?? 0) === 1
  }

  files(kbId: string): KnowledgeFile[] {
    return this.many<FileRow>('SELECT * FROM kb_files WHERE kb_id = ? ORDER BY created_at, rowid', kbId).map(fileFromRow)
  }

  fileBySha(kbId: string, sha256: string): KnowledgeFile | undefined {
    const row = this.one<FileRow>("SELECT * FROM kb_files WHERE kb_id = ? AND sha256 = ? AND status != 'Error' LIMIT 1", kbId, sha256)
    return row ? fileFromRow(row) : undefined
  }

  /** How many knowledge-base files (any base) keep these bytes. */
  shaUsers(sha256: string): number {
    return this.one<{ n: number }>('SELECT count(*) AS n FROM kb_files WHERE sha256 = ?', sha256)?.n ?? 0
  }

  /** Files waiting or interrupted, oldest first. */
  pending(kbId?: string): KnowledgeFile[] {
    const sql = kbId
      ? "SELECT * FROM kb_files WHERE status IN ('Pending', 'Processing') AND kb_id = ? ORDER BY created_at, rowid"
      : "SELECT * FROM kb_files WHERE status IN ('Pending', 'Processing') ORDER BY created_at, rowid"
    return (kbId ? this.many<FileRow>(sql, kbId) : this.many<FileRow>(sql)).map(fileFromRow)
  }

  setState(id: string, patch: { status?: ProcessingStatus; stage?: FileStage; error?: string | null; flagged?: string | null }): KnowledgeFile {
    const file = this.requireFile(id)
    this.exec(
      'UPDATE kb_files SET status = ?, stage = ?, error = ?, flagged = ?, updated_at = ? WHERE id = ?',
      patch.status ?? file.status,
      patch.stage ?? file.stage,
      patch.error === undefined ? file.error : patch.error,
      patch.flagged === undefined ? file.flagged : patch.flagged,
      Date.now(),
      id
    )
    return this.requireFile(id)
  }

  /** Removes a file, its chunks, their vectors and their text index rows. */
  deleteFile(id: string): KnowledgeFile | undefined {
    const file = this.getFile(id)
    if (!file) return undefined
    this.db.transaction(() => this.unindex(file))
    this.exec('DELETE FROM kb_files WHERE id = ?', id)
    return file
  }

  /** Takes a file's chunks out of search and drops them (before chunking it again, or deleting it). */
  private unindex(file: KnowledgeFile): void {
    const ids = this.many<{ id: number }>('SELECT id FROM kb_chunks WHERE file_id = ?', file.id).map((r) => r.id)
    if (ids.length) {
      const kb = this.get(file.kbId)
      if (kb?.dimensions) {
        this.signIndexes.delete(file.kbId)
        const del = this.sqlite.prepare(`DELETE FROM ${vectorTable(file.kbId)} WHERE rowid = ?`)
        for (const chunkId of ids) del.run(BigInt(chunkId))
      }
      const delFts = this.db.prepare('DELETE FROM kb_chunks_fts WHERE rowid = ?')
      for (const chunkId of ids) delFts.run(chunkId)
    }
    this.exec('DELETE FROM kb_chunks WHERE file_id = ?', file.id)
  }

  /** Back to the queue from scratch (process again): chunks are made anew. */
  requeue(id: string): KnowledgeFile {
    const file = this.requireFile(id)
    this.db.transaction(() => {
      this.unindex(file)
      this.exec(
        "UPDATE kb_files SET status = 'Pending', stage = 'queued', chunked = 0, chunks_total = 0, chunks_done = 0, error = NULL, flagged = NULL, updated_at = ? WHERE id = ?",
        Date.now(),
        id
      )
    })
    return this.requireFile(id)
  }

  /** The file's chunks, all at once with the flag that they exist (a crash leaves none or all). */
  saveChunks(file: KnowledgeFile, chunks: readonly ChunkInput[]): void {
    this.db.transaction(() => {
      this.unindex(file)
      const insert = this.db.prepare('INSERT INTO kb_chunks (kb_id, file_id, seq, text, heading, page, char_start, char_end) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      for (const c of chunks) insert.run(file.kbId, file.id, c.seq, c.text, c.heading, c.page, c.start, c.end)
      this.exec("UPDATE kb_files SET chunked = 1, chunks_total = ?, chunks_done = 0, stage = 'embedding', updated_at = ? WHERE id = ?", chunks.length, Date.now(), file.id)
    })
  }

  /** Chunks still without a vector, in file order. */
  unembedded(fileId: string, limit: number): { id: number; text: string }[] {
    return this.many<{ id: number; text: string }>('SELECT id, text FROM kb_chunks WHERE file_id = ? AND embedding IS NULL ORDER BY seq LIMIT ?', fileId, limit)
  }

  /**
   * Keeps one batch of vectors. The first batch of a base fixes its dimension (and creates its
   * vec0 table); any other dimension afterwards is refused, naming both.
   */
  saveEmbeddings(kbId: string, fileId: string, vectors: { id: number; vector: readonly number[] }[], model: string): number {
    if (vectors.length === 0) return this.requireFile(fileId).chunksDone
    const dims = vectors[0]!.vector.length
    return this.db.transaction(() => {
      const kb = this.require(kbId)
      if (kb.dimensions === null) {
        requireVectors(this.sqlite)
        this.sqlite.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS ${vectorTable(kbId)} USING vec0(embedding bit[${bitWidth(dims)}])`)
        this.exec('UPDATE knowledge_bases SET dimensions = ? WHERE id = ?', dims, kbId)
      } else if (kb.dimensions !== dims || vectors.some((v) => v.vector.length !== dims)) {
        const other = kb.dimensions !== dims ? dims : vectors.find((v) => v.vector.length !== kb.dimensions)!.vector.length
        throw storeError(
          'EmbeddingDimensionMismatch',
          `${model} returned vectors of ${other} dimensions, but this knowledge base holds vectors of ${kb.dimensions} dimensions. ` +
            'Pick the model it was built with, or change its model so that everything is embedded again.',
          422,
          { expected: kb.dimensions, got: other }
        )
      }
      const set = this.db.prepare('UPDATE kb_chunks SET embedding = ? WHERE id = ? AND file_id = ? AND embedding IS NULL')
      for (const v of vectors) set.run(toBlob(v.vector), v.id, fileId)
      const done = this.one<{ n: number }>('SELECT count(*) AS n FROM kb_chunks WHERE file_id = ? AND embedding IS NOT NULL', fileId)!.n
      this.exec('UPDATE kb_files SET chunks_done = ?, updated_at = ? WHERE id = ?', done, Date.now(), fileId)
      return done
    })
  }

  /**
   * Makes a fully embedded file searchable in one transaction: the sign bits of its vectors go
   * into the vec0 table (k-NN by Hamming distance), its text into FTS5; the float vectors stay
   * with the chunks for the exact re-rank.
   */
  publish(kbId: string, fileId: string): void {
    this.db.transaction(() => {
      const missing = this.one<{ n: number }>('SELECT count(*) AS n FROM kb_chunks WHERE file_id = ? AND embedding IS NULL', fileId)!.n
      if (missing > 0) throw storeError('StorageError', `${missing} chunk(s) of this file have no vector yet.`, 500)
      const rows = this.many<{ id: number; text: string; heading: string | null; embedding: Buffer }>(
        'SELECT id, text, heading, embedding FROM kb_chunks WHERE file_id = ?',
        fileId
      )
      if (rows.length > 0) {
        requireVectors(this.sqlite)
        this.signIndexes.delete(kbId)
        const vec = this.sqlite.prepare(`INSERT OR REPLACE INTO ${vectorTable(kbId)} (rowid, embedding) VALUES (?, vec_bit(?))`)
        const fts = this.db.prepare('INSERT INTO kb_chunks_fts (rowid, text, heading, kb_id) VALUES (?, ?, ?, ?)')
        for (const r of rows) {
          vec.run(BigInt(r.id), signBits(new Float32Array(r.embedding.buffer, r.embedding.byteOffset, r.embedding.byteLength / 4)))
          fts.run(r.id, r.text, r.heading ?? '', kbId)
        }
      }
      this.exec("UPDATE kb_files SET status = 'Success', stage = 'checking', error = NULL, updated_at = ? WHERE id = ?", Date.now(), fileId)
    })
  }

  /**
   * The end of a file in one transaction (one commit): its last vectors, publishing, the
   * self-check (which sees the file's own rows), and Success with the check's verdict.
   */
  finish(kbId: string, fileId: string, last: { id: number; vector: readonly number[] }[], model: string, check: () => string | null): KnowledgeFile {
    return this.db.transaction(() => {
      this.saveEmbeddings(kbId, fileId, last, model)
      this.publish(kbId, fileId)
      const flagged = check()
      this.exec("UPDATE kb_files SET stage = 'done', flagged = ?, updated_at = ? WHERE id = ?", flagged, Date.now(), fileId)
      return this.requireFile(fileId)
    })
  }

  /** A file that fit one batch: its chunks, vectors, publishing and check in one transaction. */
  finishWhole(file: KnowledgeFile, chunks: readonly ChunkInput[], vectors: readonly (readonly number[])[], model: string, check: () => string | null): KnowledgeFile {
    return this.db.transaction(() => {
      this.saveChunks(file, chunks)
      const rows = this.unembedded(file.id, chunks.length)
      return this.finish(file.kbId, file.id, rows.map((c, i) => ({ id: c.id, vector: vectors[i]! })), model, check)
    })
  }

  // Retrieval

  /**
   * k nearest chunks by cosine distance, best first: sqlite-vec finds candidates by the Hamming
   * distance of sign bits (a 32× smaller scan than float32), then the float vectors of those
   * candidates are compared exactly. With fewer chunks than candidates this is exact.
   */
  nearest(kbId: string, vector: readonly number[], k: number): { chunkId: number; distance: number }[] {
    const kb = this.require(kbId)
    if (!kb.dimensions) return []
    requireVectors(this.sqlite)
    if (vector.length !== kb.dimensions)
      throw storeError('EmbeddingDimensionMismatch', `The query vector has ${vector.length} dimensions; this knowledge base holds ${kb.dimensions}.`, 422)
    const candidates = Math.min(4096, Math.max(MIN_CANDIDATES, k * OVERSAMPLE))
    const ids = this.coarse(kbId, kb.dimensions, signBits(vector), candidates)
    if (ids.length === 0) return []
    const rows = this.many<{ id: number; embedding: Buffer | null }>(`SELECT id, embedding FROM kb_chunks WHERE id IN (SELECT value FROM json_each(?))`, JSON.stringify(ids))
    const query = new Float32Array(vector)
    let queryNorm = 0
    for (const x of query) queryNorm += x * x
    queryNorm = Math.sqrt(queryNorm)
    return rows
      .filter((r) => r.embedding)
      .map((r) => ({ chunkId: r.id, distance: cosineDistance(query, queryNorm, r.embedding!) }))
      .sort((a, b) => a.distance - b.distance || a.chunkId - b.chunkId)
      .slice(0, k)
  }

  /**
   * Candidate ids by Hamming distance of sign bits. Outside a transaction from the in-memory
   * index (built from vec0 once per change); inside one — the self-check runs in the publishing
   * transaction, whose rows may still roll back — from vec0 itself, so no uncommitted row is cached.
   */
  private coarse(kbId: string, dims: number, bits: Buffer, k: number): number[] {
    if (this.sqlite.inTransaction) {
      // vec0's scan slows with k; the self-check only asks whether a file is in the top ten.
      const rows = this.db.guard(() => this.db.prepare(`SELECT rowid AS id FROM ${vectorTable(kbId)} WHERE embedding MATCH vec_bit(?) AND k = ?`).all(bits, Math.min(k, IN_TRANSACTION_CANDIDATES)) as { id: number | bigint }[])
      return rows.map((r) => Number(r.id))
    }
    const version = this.db.guard(() => this.sqlite.pragma('data_version', { simple: true }) as number)
    if (version !== this.signIndexesVersion) {
      this.signIndexes.clear()
      this.signIndexesVersion = version
    }
    let index = this.signIndexes.get(kbId)
    if (!index) {
      const rows = this.db.guard(() => this.db.prepare(`SELECT rowid AS id, embedding AS bits FROM ${vectorTable(kbId)}`).all() as { id: number | bigint; bits: Uint8Array }[])
      index = SignIndex.build(rows, bitWidth(dims) / 8)
      this.signIndexes.set(kbId, index)
    }
    return index.nearest(bits, k)
  }

  /**
   * Best bm25 matches of the query's informative words within one base, ranked by its rarest
   * words (see KEYWORD_POSTINGS_BUDGET): bounded work however common the other words are.
   */
  keyword(kbId: string, query: string, k: number): { chunkId: number; rank: number }[] {
    return this.keywordEvidence(kbId, query, k).hits.map((h) => ({ chunkId: h.chunkId, rank: -h.score }))
  }

  /** The keyword side of hybrid retrieval: bm25 hits of the informative words, and the chunks of rare terms. */
  keywordEvidence(kbId: string, query: string, k: number): KeywordEvidence {
    const words = queryWords(query)
    if (words.length === 0) return { hits: [], rare: [] }
    const docs = this.termDocs(words)
    const picked = pickKeywordWords(informativeWords(words, docs, this.totalChunks()), docs)
    const match = ftsQuery(picked)
    if (!match) return { hits: [], rare: [] }
    const hits = this.many<{ id: number; rank: number }>(
      'SELECT rowid AS id, rank FROM kb_chunks_fts WHERE kb_chunks_fts MATCH ? ORDER BY rank LIMIT ?',
      `{text heading} : (${match}) AND kb_id : "${kbId}"`,
      k
    ).map((r) => ({ chunkId: r.id, score: -r.rank }))
    // The rarest indexed words (any base) may be rare in this one: their chunks, counted here.
    const rare: number[] = []
    const candidates = picked.filter((w) => docs.has(w)).sort((a, b) => docs.get(a)! - docs.get(b)! || a.localeCompare(b)).slice(0, RARE_TERM_WORDS)
    for (const word of candidates) {
      const ids = this.many<{ id: number }>(
        'SELECT rowid AS id FROM kb_chunks_fts WHERE kb_chunks_fts MATCH ? LIMIT ?',
        `{text heading} : "${word}" AND kb_id : "${kbId}"`,
        RARE_TERM_CHUNKS + 1
      ).map((r) => r.id)
      if (ids.length > 0 && ids.length <= RARE_TERM_CHUNKS) for (const id of ids) if (!rare.includes(id)) rare.push(id)
    }
    return { hits, rare }
  }

  /** How many chunks the text index holds (all bases): the denominator of a word's share. */
  private totalChunks(): number {
    // All chunks, published or not: counted from the smallest index, never reading the vectors.
    return this.one<{ n: number }>('SELECT count(*) AS n FROM kb_chunks')?.n ?? 0
  }

  /**
   * In how many chunks (of all bases) each word occurs, from the FTS5 index's own vocabulary. The
   * fts5vocab table is a temp table of this connection: nothing in the schema, nothing to migrate.
   */
  private termDocs(words: readonly string[]): Map<string, number> {
    // Made once per connection; one made inside a transaction (the self-check's) may be rolled
    // back with it, so only one made outside counts as made.
    if (!this.vocabMade) {
      this.db.guard(() => this.sqlite.exec('CREATE VIRTUAL TABLE IF NOT EXISTS temp.kb_chunks_vocab USING fts5vocab(main, kb_chunks_fts, row)'))
      this.vocabMade = !this.sqlite.inTransaction
    }
    const rows = this.many<{ term: string; doc: number }>('SELECT term, doc FROM temp.kb_chunks_vocab WHERE term IN (SELECT value FROM json_each(?))', JSON.stringify(words))
    return new Map(rows.map((r) => [r.term, r.doc]))
  }

  chunks(ids: readonly number[]): ChunkInfo[] {
    if (ids.length === 0) return []
    const rows = this.many<{ id: number; kb_id: string; file_id: string; name: string; text: string; heading: string | null; page: number | null; char_start: number; char_end: number }>(
      `SELECT c.id, c.kb_id, c.file_id, f.name, c.text, c.heading, c.page, c.char_start, c.char_end
       FROM kb_chunks c JOIN kb_files f ON f.id = c.file_id WHERE c.id IN (${ids.map(() => '?').join(',')})`,
      ...ids
    )
    return rows.map((r) => ({
      chunkId: r.id,
      kbId: r.kb_id,
      fileId: r.file_id,
      fileName: r.name,
      text: r.text,
      heading: r.heading,
      page: r.page,
      charStart: r.char_start,
      charEnd: r.char_end
    }))
  }

  /** The text of a file's chunks in order (for the self-check query). */
  fileChunks(fileId: string): { id: number; text: string }[] {
    return this.many<{ id: number; text: string }>('SELECT id, text FROM kb_chunks WHERE file_id = ? ORDER BY seq', fileId)
  }

  /** How many of a base's chunks are searchable (vectors and text); the two must agree. */
  searchableCounts(kbId: string): { vectors: number; text: number } {
    const kb = this.require(kbId)
    const vectors = kb.dimensions ? (this.one<{ n: number }>(`SELECT count(*) AS n FROM ${vectorTable(kbId)}`)?.n ?? 0) : 0
    const text = this.one<{ n: number }>('SELECT count(*) AS n FROM kb_chunks_fts WHERE kb_id = ?', kbId)?.n ?? 0
    return { vectors, text }
  }

  // Attachments

  attached(owner: { kind: 'agent' | 'conversation'; id: string }): string[] {
    return this.many<{ kb_id: string }>('SELECT kb_id FROM kb_attachments WHERE owner_kind = ? AND owner_id = ? ORDER BY kb_id', owner.kind, owner.id).map((r) => r.kb_id)
  }

  setAttached(owner: { kind: 'agent' | 'conversation'; id: string }, kbIds: readonly string[]): string[] {
    this.db.transaction(() => {
      this.exec('DELETE FROM kb_attachments WHERE owner_kind = ? AND owner_id = ?', owner.kind, owner.id)
      for (const kbId of new Set(kbIds)) {
        this.require(kbId)
        this.exec('INSERT INTO kb_attachments (owner_kind, owner_id, kb_id) VALUES (?, ?, ?)', owner.kind, owner.id, kbId)
      }
    })
    return this.attached(owner)
  }

  attachmentsOf(kbId: string): { kind: 'agent' | 'conversation'; id: string }[] {
    return this.many<{ owner_kind: 'agent' | 'conversation'; owner_id: string }>('SELECT owner_kind, owner_id FROM kb_attachments WHERE kb_id = ? ORDER BY owner_kind, owner_id', kbId).map((r) => ({
      kind: r.owner_kind,
      id: r.owner_id
    }))
  }

  // Reply sources

  saveSources(messageId: string, sources: readonly ReplySource[]): void {
    this.db.transaction(() => {
      this.exec('DELETE FROM kb_reply_sources WHERE message_id = ?', messageId)
      const insert = this.db.prepare(
        'INSERT INTO kb_reply_sources (message_id, n, kb_id, file_id, file_name, chunk_id, heading, page, char_start, char_end, excerpt, score) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)'
      )
      for (const s of sources) insert.run(messageId, s.n, s.kbId, s.fileId, s.fileName, s.chunkId, s.heading, s.page, s.charStart, s.charEnd, s.excerpt, s.score ?? null)
    })
  }

  sources(messageIds: readonly string[]): Record<string, ReplySource[]> {
    const out: Record<string, ReplySource[]> = {}
    if (messageIds.length === 0) return out
    const rows = this.many<Record<string, unknown>>(
      `SELECT * FROM kb_reply_sources WHERE message_id IN (${messageIds.map(() => '?').join(',')}) ORDER BY message_id, n`,
      ...messageIds
    )
    for (const r of rows) {
      ;(out[r['message_id'] as string] ??= []).push({
        n: r['n'] as number,
        kbId: r['kb_id'] as string,
        fileId: r['file_id'] as string,
        fileName: r['file_name'] as string,
        chunkId: r['chunk_id'] as number,
        heading: r['heading'] as string | null,
        page: r['page'] as number | null,
        charStart: r['char_start'] as number,
        charEnd: r['char_end'] as number,
        excerpt: r['excerpt'] as string,
        ...(typeof r['score'] === 'number' ? { score: r['score'] } : {})
      })
    }
    return out
  }
}
