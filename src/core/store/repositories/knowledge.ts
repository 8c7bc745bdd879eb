import type {
  FileStage,
  KnowledgeBase,
  KnowledgeBaseSummary,
  KnowledgeFile,
  ProcessingStatus,
  Chunk,
  ChunkInfo
} from '../../../shared/knowledge/types'
import type { Selectable } from 'kysely'
import { sql } from 'kysely'
import type { StoreDb } from '../database'
import { notFound, storeError } from '../errors'
import { newId } from '../ids'
import { requireVectors } from '../vector-extension'
import type { KbFilesTable, KnowledgeBasesTable } from '../schema'
import { cosineDistance, KnowledgeIndex, toBlob, type KeywordEvidence } from './knowledge-index'

export {
  COMMON_SHARE,
  ftsQuery,
  informativeWords,
  KEYWORD_POSTINGS_BUDGET,
  pickKeywordWords,
  queryWords,
  RARE_TERM_CHUNKS,
  signBits,
  STOP_WORDS,
  vectorTable,
  type KeywordEvidence
} from './knowledge-index'

type KbRow = Selectable<KnowledgeBasesTable>
type FileRow = Selectable<KbFilesTable>

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

/**
 * Knowledge bases, their files, chunks, attachments and reply sources: kysely queries like every
 * other repository. The search index (FTS5 text, vec0 sign bits) is KnowledgeIndex's, the one
 * place with raw SQL; this class keeps the two in step inside its transactions.
 */
export class KnowledgeRepository {
  private readonly index: KnowledgeIndex

  constructor(private readonly db: StoreDb) {
    this.index = new KnowledgeIndex(db)
  }

  private get q() {
    return this.db.q
  }

  // Knowledge bases

  create(input: { name: string; description?: string; providerId: string; modelId: string; chunkSize: number; chunkOverlap: number; id?: string }): KnowledgeBase {
    // A base without vector search would take files it can never search: refuse at once.
    requireVectors(this.db.sqlite)
    const now = Date.now()
    const id = input.id ?? newId()
    this.db.run(
      this.q.insertInto('knowledge_bases').values({
        id,
        name: input.name,
        description: input.description ?? '',
        provider_id: input.providerId,
        model_id: input.modelId,
        dimensions: null,
        chunk_size: input.chunkSize,
        chunk_overlap: input.chunkOverlap,
        created_at: now,
        updated_at: now
      })
    )
    return this.require(id)
  }

  get(id: string): KnowledgeBase | undefined {
    const row = this.db.first(this.q.selectFrom('knowledge_bases').selectAll().where('id', '=', id))
    return row ? kbFromRow(row) : undefined
  }

  require(id: string): KnowledgeBase {
    const kb = this.get(id)
    if (!kb) throw notFound('Knowledge base', id)
    return kb
  }

  list(): KnowledgeBaseSummary[] {
    const rows = this.db.all(this.q.selectFrom('knowledge_bases').selectAll().orderBy('created_at'))
    const counts = this.db.all(
      this.q
        .selectFrom('kb_files')
        .select(['kb_id', 'status', (eb) => eb.fn.countAll<number>().as('n'), (eb) => eb.fn.sum<number | null>('chunks_total').as('chunks')])
        .groupBy(['kb_id', 'status'])
    )
    return rows.map((row) => {
      const mine = counts.filter((c) => c.kb_id === row.id)
      const by = { Pending: 0, Processing: 0, Success: 0, Error: 0 } as Record<ProcessingStatus, number>
      for (const c of mine) by[c.status as ProcessingStatus] = c.n
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
    this.db.run(
      this.q
        .updateTable('knowledge_bases')
        .set({
          name: next.name,
          description: next.description,
          provider_id: next.providerId,
          model_id: next.modelId,
          chunk_size: next.chunkSize,
          chunk_overlap: next.chunkOverlap,
          updated_at: Date.now()
        })
        .where('id', '=', id)
    )
    return this.require(id)
  }

  delete(id: string): boolean {
    return this.db.transaction(() => {
      this.index.dropBase(id)
      this.db.run(this.q.deleteFrom('kb_chunks').where('kb_id', '=', id))
      return this.db.run(this.q.deleteFrom('knowledge_bases').where('id', '=', id)) > 0
    })
  }

  /**
   * Everything goes back to be embedded again (the model changed): vectors and the text index
   * are dropped, chunks are kept (the text did not change), files become Pending.
   */
  resetEmbeddings(kbId: string): void {
    this.db.transaction(() => {
      this.index.dropBase(kbId)
      const now = Date.now()
      this.db.run(this.q.updateTable('kb_chunks').set({ embedding: null }).where('kb_id', '=', kbId))
      this.db.run(this.q.updateTable('knowledge_bases').set({ dimensions: null, updated_at: now }).where('id', '=', kbId))
      this.db.run(
        this.q
          .updateTable('kb_files')
          .set({ status: 'Pending', stage: 'queued', chunks_done: 0, flagged: null, updated_at: now })
          .where('kb_id', '=', kbId)
          .where('status', '!=', 'Error')
      )
    })
  }

  // Files

  addFile(input: { kbId: string; name: string; source: string; path: string | null; sha256: string | null; size: number; status: ProcessingStatus; stage: FileStage; error?: string }): KnowledgeFile {
    const now = Date.now()
    const id = newId()
    this.db.run(
      this.q.insertInto('kb_files').values({
        id,
        kb_id: input.kbId,
        name: input.name,
        source: input.source,
        path: input.path,
        sha256: input.sha256,
        size: input.size,
        status: input.status,
        stage: input.stage,
        chunked: 0,
        chunks_total: 0,
        chunks_done: 0,
        error: input.error ?? null,
        flagged: null,
        created_at: now,
        updated_at: now
      })
    )
    return this.requireFile(id)
  }

  getFile(id: string): KnowledgeFile | undefined {
    const row = this.db.first(this.q.selectFrom('kb_files').selectAll().where('id', '=', id))
    return row ? fileFromRow(row) : undefined
  }

  requireFile(id: string): KnowledgeFile {
    const file = this.getFile(id)
    if (!file) throw notFound('File', id)
    return file
  }

  isChunked(id: string): boolean {
    return (this.db.first(this.q.selectFrom('kb_files').select('chunked').where('id', '=', id))?.chunked ?? 0) === 1
  }

  files(kbId: string): KnowledgeFile[] {
    return this.db
      .all(this.q.selectFrom('kb_files').selectAll().where('kb_id', '=', kbId).orderBy('created_at').orderBy(sql`rowid`))
      .map(fileFromRow)
  }

  fileBySha(kbId: string, sha256: string): KnowledgeFile | undefined {
    const row = this.db.first(
      this.q.selectFrom('kb_files').selectAll().where('kb_id', '=', kbId).where('sha256', '=', sha256).where('status', '!=', 'Error').limit(1)
    )
    return row ? fileFromRow(row) : undefined
  }

  /** How many knowledge-base files (any base) keep these bytes. */
  shaUsers(sha256: string): number {
    return this.db.first(this.q.selectFrom('kb_files').select((eb) => eb.fn.countAll<number>().as('n')).where('sha256', '=', sha256))?.n ?? 0
  }

  /** Files waiting or interrupted, oldest first. */
  pending(kbId?: string): KnowledgeFile[] {
    let query = this.q.selectFrom('kb_files').selectAll().where('status', 'in', ['Pending', 'Processing'])
    if (kbId) query = query.where('kb_id', '=', kbId)
    return this.db.all(query.orderBy('created_at').orderBy(sql`rowid`)).map(fileFromRow)
  }

  setState(id: string, patch: { status?: ProcessingStatus; stage?: FileStage; error?: string | null; flagged?: string | null }): KnowledgeFile {
    const file = this.requireFile(id)
    this.db.run(
      this.q
        .updateTable('kb_files')
        .set({
          status: patch.status ?? file.status,
          stage: patch.stage ?? file.stage,
          error: patch.error === undefined ? file.error : patch.error,
          flagged: patch.flagged === undefined ? file.flagged : patch.flagged,
          updated_at: Date.now()
        })
        .where('id', '=', id)
    )
    return this.requireFile(id)
  }

  /** Removes a file, its chunks, their vectors and their text index rows. */
  deleteFile(id: string): KnowledgeFile | undefined {
    const file = this.getFile(id)
    if (!file) return undefined
    this.db.transaction(() => this.unindex(file))
    this.db.run(this.q.deleteFrom('kb_files').where('id', '=', id))
    return file
  }

  /** Takes a file's chunks out of search and drops them (before chunking it again, or deleting it). */
  private unindex(file: KnowledgeFile): void {
    const ids = this.db.all(this.q.selectFrom('kb_chunks').select('id').where('file_id', '=', file.id)).map((r) => r.id)
    if (ids.length) this.index.remove(file.kbId, ids, Boolean(this.get(file.kbId)?.dimensions))
    this.db.run(this.q.deleteFrom('kb_chunks').where('file_id', '=', file.id))
  }

  /** Back to the queue from scratch (process again): chunks are made anew. */
  requeue(id: string): KnowledgeFile {
    const file = this.requireFile(id)
    this.db.transaction(() => {
      this.unindex(file)
      this.db.run(
        this.q
          .updateTable('kb_files')
          .set({ status: 'Pending', stage: 'queued', chunked: 0, chunks_total: 0, chunks_done: 0, error: null, flagged: null, updated_at: Date.now() })
          .where('id', '=', id)
      )
    })
    return this.requireFile(id)
  }

  /** The file's chunks, all at once with the flag that they exist (a crash leaves none or all). */
  saveChunks(file: KnowledgeFile, chunks: readonly ChunkInput[]): void {
    this.db.transaction(() => {
      this.unindex(file)
      // One statement built once and run per chunk: a file may have thousands.
      const insert = this.q
        .insertInto('kb_chunks')
        .values({ kb_id: '', file_id: '', seq: 0, text: '', heading: null, page: null, char_start: 0, char_end: 0 })
        .compile().sql
      const statement = this.db.prepare(insert)
      for (const c of chunks) statement.run(file.kbId, file.id, c.seq, c.text, c.heading, c.page, c.start, c.end)
      this.db.run(
        this.q
          .updateTable('kb_files')
          .set({ chunked: 1, chunks_total: chunks.length, chunks_done: 0, stage: 'embedding', updated_at: Date.now() })
          .where('id', '=', file.id)
      )
    })
  }

  /** Chunks still without a vector, in file order. */
  unembedded(fileId: string, limit: number): { id: number; text: string }[] {
    return this.db.all(this.q.selectFrom('kb_chunks').select(['id', 'text']).where('file_id', '=', fileId).where('embedding', 'is', null).orderBy('seq').limit(limit))
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
        this.index.createVectors(kbId, dims)
        this.db.run(this.q.updateTable('knowledge_bases').set({ dimensions: dims }).where('id', '=', kbId))
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
      // Built once, run per vector (a batch holds up to hundreds).
      const set = this.q.updateTable('kb_chunks').set({ embedding: Buffer.alloc(0) }).where('id', '=', 0).where('file_id', '=', '').where('embedding', 'is', null).compile().sql
      const statement = this.db.prepare(set)
      this.db.guard(() => {
        for (const v of vectors) statement.run(toBlob(v.vector), v.id, fileId)
      })
      const done = this.embeddedCount(fileId)
      this.db.run(this.q.updateTable('kb_files').set({ chunks_done: done, updated_at: Date.now() }).where('id', '=', fileId))
      return done
    })
  }

  private embeddedCount(fileId: string): number {
    return this.db.first(this.q.selectFrom('kb_chunks').select((eb) => eb.fn.countAll<number>().as('n')).where('file_id', '=', fileId).where('embedding', 'is not', null))?.n ?? 0
  }

  /**
   * Makes a fully embedded file searchable in one transaction: the sign bits of its vectors go
   * into the vec0 table (k-NN by Hamming distance), its text into FTS5; the float vectors stay
   * with the chunks for the exact re-rank.
   */
  publish(kbId: string, fileId: string): void {
    this.db.transaction(() => {
      const missing =
        this.db.first(this.q.selectFrom('kb_chunks').select((eb) => eb.fn.countAll<number>().as('n')).where('file_id', '=', fileId).where('embedding', 'is', null))?.n ?? 0
      if (missing > 0) throw storeError('StorageError', `${missing} chunk(s) of this file have no vector yet.`, 500)
      const rows = this.db.all(this.q.selectFrom('kb_chunks').select(['id', 'text', 'heading', 'embedding']).where('file_id', '=', fileId))
      this.index.add(
        kbId,
        rows.map((r) => ({ id: r.id, text: r.text, heading: r.heading, embedding: r.embedding! }))
      )
      this.db.run(this.q.updateTable('kb_files').set({ status: 'Success', stage: 'checking', error: null, updated_at: Date.now() }).where('id', '=', fileId))
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
      this.db.run(this.q.updateTable('kb_files').set({ stage: 'done', flagged, updated_at: Date.now() }).where('id', '=', fileId))
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
    if (vector.length !== kb.dimensions)
      throw storeError('EmbeddingDimensionMismatch', `The query vector has ${vector.length} dimensions; this knowledge base holds ${kb.dimensions}.`, 422)
    const ids = this.index.candidates(kbId, kb.dimensions, vector, k)
    if (ids.length === 0) return []
    const rows = this.db.all(
      this.q
        .selectFrom('kb_chunks')
        .select(['id', 'embedding'])
        .where('id', 'in', sql<number>`(SELECT value FROM json_each(${JSON.stringify(ids)}))`)
    )
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
   * Best bm25 matches of the query's informative words within one base, ranked by its rarest
   * words (see KEYWORD_POSTINGS_BUDGET): bounded work however common the other words are.
   */
  keyword(kbId: string, query: string, k: number): { chunkId: number; rank: number }[] {
    return this.keywordEvidence(kbId, query, k).hits.map((h) => ({ chunkId: h.chunkId, rank: -h.score }))
  }

  /** The keyword side of hybrid retrieval: bm25 hits of the informative words, and the chunks of rare terms. */
  keywordEvidence(kbId: string, query: string, k: number): KeywordEvidence {
    return this.index.keywordEvidence(kbId, query, k, () => this.totalChunks())
  }

  /** How many chunks the text index holds (all bases): the denominator of a word's share. */
  private totalChunks(): number {
    // All chunks, published or not: counted from the smallest index, never reading the vectors.
    return this.db.first(this.q.selectFrom('kb_chunks').select((eb) => eb.fn.countAll<number>().as('n')))?.n ?? 0
  }

  chunks(ids: readonly number[]): ChunkInfo[] {
    if (ids.length === 0) return []
    const rows = this.db.all(
      this.q
        .selectFrom('kb_chunks as c')
        .innerJoin('kb_files as f', 'f.id', 'c.file_id')
        .select(['c.id', 'c.kb_id', 'c.file_id', 'f.name', 'c.text', 'c.heading', 'c.page', 'c.char_start', 'c.char_end'])
        .where('c.id', 'in', [...ids])
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
    return this.db.all(this.q.selectFrom('kb_chunks').select(['id', 'text']).where('file_id', '=', fileId).orderBy('seq'))
  }

  /** How many of a base's chunks are searchable (vectors and text); the two must agree. */
  searchableCounts(kbId: string): { vectors: number; text: number } {
    return this.index.searchableCounts(kbId, Boolean(this.require(kbId).dimensions))
  }

  // Attachments

  attached(owner: { kind: 'agent' | 'conversation'; id: string }): string[] {
    return this.db
      .all(this.q.selectFrom('kb_attachments').select('kb_id').where('owner_kind', '=', owner.kind).where('owner_id', '=', owner.id).orderBy('kb_id'))
      .map((r) => r.kb_id)
  }

  setAttached(owner: { kind: 'agent' | 'conversation'; id: string }, kbIds: readonly string[]): string[] {
    this.db.transaction(() => {
      this.db.run(this.q.deleteFrom('kb_attachments').where('owner_kind', '=', owner.kind).where('owner_id', '=', owner.id))
      for (const kbId of new Set(kbIds)) {
        this.require(kbId)
        this.db.run(this.q.insertInto('kb_attachments').values({ owner_kind: owner.kind, owner_id: owner.id, kb_id: kbId }))
      }
    })
    return this.attached(owner)
  }

  attachmentsOf(kbId: string): { kind: 'agent' | 'conversation'; id: string }[] {
    return this.db
      .all(this.q.selectFrom('kb_attachments').select(['owner_kind', 'owner_id']).where('kb_id', '=', kbId).orderBy('owner_kind').orderBy('owner_id'))
      .map((r) => ({ kind: r.owner_kind, id: r.owner_id }))
  }
}
