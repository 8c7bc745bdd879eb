import type { StoreDb } from '../database'
import { storeError } from '../errors'
import { requireVectors } from '../vector-extension'
import { SignIndex } from './sign-index'

/*
 * The search side of knowledge bases: the chunks' FTS5 text index and each base's vec0 table of
 * sign bits. The one module with raw SQL in the knowledge store, on purpose: vec0 and FTS5
 * queries (MATCH, k, bm25 rank, fts5vocab) are not what a query builder is for, and retrieval is
 * hot. Rows of plain tables (bases, files, chunks, attachments, sources) are kysely queries in
 * knowledge.ts.
 */

/** vec0 fixes the dimension per table, so each knowledge base has its own. Ids are [0-9a-z]{16}. */
export const vectorTable = (kbId: string): string => {
  if (!/^[0-9a-z]{1,64}$/.test(kbId)) throw storeError('ValidationError', `Not a knowledge base id: ${JSON.stringify(kbId)}`, 400)
  return `kb_vec_${kbId}`
}

export const toBlob = (vector: readonly number[]): Buffer => Buffer.from(new Float32Array(vector).buffer)

/** Sign bits of a vector, padded to whole bytes: the coarse vector sqlite-vec searches by Hamming distance. */
export function signBits(vector: ArrayLike<number>): Buffer {
  const out = Buffer.alloc(Math.ceil(vector.length / 8))
  for (let i = 0; i < vector.length; i++) if (vector[i]! > 0) out[i >> 3]! |= 1 << (i & 7)
  return out
}

const bitWidth = (dims: number) => Math.ceil(dims / 8) * 8

/** Cosine distance of a query (normalised here) and a stored float32 blob. */
export function cosineDistance(query: Float32Array, queryNorm: number, blob: Buffer): number {
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

export class KnowledgeIndex {
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

  private many<T>(sql: string, ...params: unknown[]): T[] {
    return this.db.guard(() => this.db.prepare(sql).all(...params) as T[])
  }
  private count(sql: string, ...params: unknown[]): number {
    return this.db.guard(() => (this.db.prepare(sql).get(...params) as { n: number } | undefined)?.n ?? 0)
  }

  /** A base's vector table, made when its first vectors fix the dimension. */
  createVectors(kbId: string, dims: number): void {
    requireVectors(this.sqlite)
    this.db.guard(() => this.sqlite.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS ${vectorTable(kbId)} USING vec0(embedding bit[${bitWidth(dims)}])`))
  }

  /** Drops a base's vectors and its text index rows (the base is deleted, or embedded anew). */
  dropBase(kbId: string): void {
    this.signIndexes.delete(kbId)
    requireVectors(this.sqlite)
    this.db.guard(() => this.sqlite.exec(`DROP TABLE IF EXISTS ${vectorTable(kbId)}`))
    this.db.guard(() => this.db.prepare('DELETE FROM kb_chunks_fts WHERE kb_id = ?').run(kbId))
  }

  /** Takes chunks out of search (their vectors, when the base has any, and their text). */
  remove(kbId: string, chunkIds: readonly number[], hasVectors: boolean): void {
    if (chunkIds.length === 0) return
    this.db.guard(() => {
      if (hasVectors) {
        this.signIndexes.delete(kbId)
        const del = this.sqlite.prepare(`DELETE FROM ${vectorTable(kbId)} WHERE rowid = ?`)
        for (const chunkId of chunkIds) del.run(BigInt(chunkId))
      }
      const delFts = this.db.prepare('DELETE FROM kb_chunks_fts WHERE rowid = ?')
      for (const chunkId of chunkIds) delFts.run(chunkId)
    })
  }

  /** Makes chunks searchable: the sign bits of their vectors into vec0, their text into FTS5. */
  add(kbId: string, rows: readonly { id: number; text: string; heading: string | null; embedding: Buffer }[]): void {
    if (rows.length === 0) return
    requireVectors(this.sqlite)
    this.signIndexes.delete(kbId)
    this.db.guard(() => {
      const vec = this.sqlite.prepare(`INSERT OR REPLACE INTO ${vectorTable(kbId)} (rowid, embedding) VALUES (?, vec_bit(?))`)
      const fts = this.db.prepare('INSERT INTO kb_chunks_fts (rowid, text, heading, kb_id) VALUES (?, ?, ?, ?)')
      for (const r of rows) {
        vec.run(BigInt(r.id), signBits(new Float32Array(r.embedding.buffer, r.embedding.byteOffset, r.embedding.byteLength / 4)))
        fts.run(r.id, r.text, r.heading ?? '', kbId)
      }
    })
  }

  /** Coarse candidates for a query vector by sign bits; the caller re-ranks them exactly. */
  candidates(kbId: string, dims: number, vector: readonly number[], k: number): number[] {
    requireVectors(this.sqlite)
    const candidates = Math.min(4096, Math.max(MIN_CANDIDATES, k * OVERSAMPLE))
    return this.coarse(kbId, dims, signBits(vector), candidates)
  }

  /**
   * Candidate ids by Hamming distance of sign bits. Outside a transaction from the in-memory
   * index (built from vec0 once per change); inside one — the self-check runs in the publishing
   * transaction, whose rows may still roll back — from vec0 itself, so no uncommitted row is cached.
   */
  private coarse(kbId: string, dims: number, bits: Buffer, k: number): number[] {
    if (this.sqlite.inTransaction) {
      // vec0's scan slows with k; the self-check only asks whether a file is in the top ten.
      const rows = this.many<{ id: number | bigint }>(`SELECT rowid AS id FROM ${vectorTable(kbId)} WHERE embedding MATCH vec_bit(?) AND k = ?`, bits, Math.min(k, IN_TRANSACTION_CANDIDATES))
      return rows.map((r) => Number(r.id))
    }
    const version = this.db.guard(() => this.sqlite.pragma('data_version', { simple: true }) as number)
    if (version !== this.signIndexesVersion) {
      this.signIndexes.clear()
      this.signIndexesVersion = version
    }
    let index = this.signIndexes.get(kbId)
    if (!index) {
      const rows = this.many<{ id: number | bigint; bits: Uint8Array }>(`SELECT rowid AS id, embedding AS bits FROM ${vectorTable(kbId)}`)
      index = SignIndex.build(rows, bitWidth(dims) / 8)
      this.signIndexes.set(kbId, index)
    }
    return index.nearest(bits, k)
  }

  /** The keyword side of hybrid retrieval: bm25 hits of the informative words, and the chunks of rare terms. */
  keywordEvidence(kbId: string, query: string, k: number, totalChunks: () => number): KeywordEvidence {
    const words = queryWords(query)
    if (words.length === 0) return { hits: [], rare: [] }
    const docs = this.termDocs(words)
    const picked = pickKeywordWords(informativeWords(words, docs, totalChunks()), docs)
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

  /** How many of a base's chunks are searchable (vectors and text); the two must agree. */
  searchableCounts(kbId: string, hasVectors: boolean): { vectors: number; text: number } {
    const vectors = hasVectors ? this.count(`SELECT count(*) AS n FROM ${vectorTable(kbId)}`) : 0
    const text = this.count('SELECT count(*) AS n FROM kb_chunks_fts WHERE kb_id = ?', kbId)
    return { vectors, text }
  }
}
