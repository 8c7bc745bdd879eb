import type { MessageRole } from '../../../shared/data/message'
import type { SearchFilters, SearchHit, SearchScope, SnippetRun } from '../../../shared/data/search'
import type { StoreDb } from '../database'

// Private-use characters mark matches inside snippet(); they cannot occur in the
// tokens FTS5 matched, and are split out below so the renderer gets plain runs, never HTML.
const OPEN = '\uE000'
const CLOSE = '\uE001'

/** A last word shorter than this matches whole: "w" or "da" as prefixes match half the index and say little. */
const MIN_PREFIX = 3

/**
 * How many of the newest matches are ranked by bm25. Ranking every match of a common word over
 * a million messages reads all of them (hundreds of ms); the newest few hundred are read from
 * the index in rowid order and stop at the limit, so a query costs the same at any size.
 */
const CANDIDATES = 300

/**
 * A query of only one- or two-character Chinese/Japanese terms (排序) cannot use the trigram
 * index, so it scans message text. The scan is bounded to the newest this-many messages (an index
 * range on seq), so it costs the same at any size: ~25 ms here (100k rows) instead of ~250 ms per million
 * rows. 100,000 messages are years of daily use; older ones are found by three characters or a
 * conversation's own search, which is not bounded (its index makes that scan small anyway).
 */
export const SHORT_SCAN_LIMIT = 100_000

/** Scripts written without spaces: unicode61 sees a whole run as one token, so they go to the trigram index. */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u

const cleanWords = (text: string) =>
  text
    .split(/\s+/)
    .map((w) => w.replace(/["\uE000\uE001]/g, '').trim())
    .filter((w) => /[\p{L}\p{N}]/u.test(w))

/**
 * Turns what a person typed into an FTS5 query that cannot be a syntax error: every word
 * is a quoted string (all must match), and the last word, if long enough, matches as a
 * prefix while typing.
 */
export function toFtsQuery(text: string): string | undefined {
  const words = cleanWords(text)
  if (words.length === 0) return undefined
  return words.map((w, i) => `"${w}"${i === words.length - 1 && [...w].length >= MIN_PREFIX ? ' *' : ''}`).join(' ')
}

/** Ids as FTS5 phrases: the tokenizer splits them the same way it split the indexed value. */
const idPhrase = (id: string) => `"${id.replace(/"/g, '')}"`

export function toSnippetRuns(snippet: string): SnippetRun[] {
  const runs: SnippetRun[] = []
  let match = false
  let text = ''
  for (const ch of snippet) {
    if (ch === OPEN || ch === CLOSE) {
      if (text) runs.push({ text, match })
      text = ''
      match = ch === OPEN
    } else text += ch
  }
  if (text) runs.push({ text, match })
  return runs
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`)

interface Candidate {
  seq: number
  text: string
}

/** Lower case without diacritics, as the unicode61 tokenizer with remove_diacritics compares. */
const fold = (s: string) => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase()

/** One query word: whole, or a prefix when it is the last word being typed. */
interface Term {
  folded: string
  prefix: boolean
}

const wordTerms = (words: string[]): Term[] =>
  words.map((w, i) => ({ folded: fold(w), prefix: i === words.length - 1 && [...w].length >= MIN_PREFIX }))

const hitsTerm = (token: string, terms: Term[]) => {
  const f = fold(token)
  return terms.some((t) => (t.prefix ? f.startsWith(t.folded) : f === t.folded))
}

/** Where each query word occurs in a text, as [start, end) ranges: words by token, unspaced scripts by substring. */
function matchRanges(text: string, words: string[], unspaced: boolean): [number, number][] {
  if (unspaced) {
    const pattern = new RegExp(words.map(escapeRegExp).join('|'), 'giu')
    return [...text.matchAll(pattern)].map((m) => [m.index, m.index + m[0].length])
  }
  const terms = wordTerms(words)
  return [...text.matchAll(/[\p{L}\p{N}]+/gu)].filter((m) => hitsTerm(m[0], terms)).map((m) => [m.index, m.index + m[0].length])
}

/** A snippet around the first match, every match in it marked; the renderer gets runs, never HTML. */
function snippetOf(text: string, ranges: [number, number][], context = 24, length = 120): SnippetRun[] {
  const first = ranges[0]?.[0] ?? 0
  let start = Math.max(0, first - context)
  // Start at a word boundary when there is one near.
  const space = text.lastIndexOf(' ', first)
  if (space >= start) start = space + 1
  else if (start > 0 && space >= 0 && first - space < context * 2) start = space + 1
  const end = Math.min(text.length, start + length)
  const runs: SnippetRun[] = []
  let at = start
  for (const [a, b] of ranges) {
    if (a < at || b > end) continue
    if (a > at) runs.push({ text: text.slice(at, a), match: false })
    runs.push({ text: text.slice(a, b), match: true })
    at = b
  }
  if (at < end) runs.push({ text: text.slice(at, end), match: false })
  if (start > 0) runs.unshift({ text: '…', match: false })
  if (end < text.length) runs.push({ text: '…', match: false })
  return runs
}

/**
 * bm25 (k1 1.2, b 0.75) over the candidates. Every candidate contains every word (the query is
 * an AND), so inverse document frequency is the same for all of them and drops out of the
 * order; what ranks is how often the words occur against the message's length. FTS5's own
 * bm25() counts each word's documents over the whole index first, which over a million
 * messages reads every posting list of a common word (hundreds of ms).
 */
function rank(candidates: Candidate[], words: string[], unspaced: boolean) {
  const lengths = candidates.map((c) => (unspaced ? [...c.text].length : (c.text.match(/[\p{L}\p{N}]+/gu)?.length ?? 0)))
  const avg = lengths.reduce((a, b) => a + b, 0) / Math.max(1, lengths.length) || 1
  return candidates.map((c, i) => {
    const ranges = matchRanges(c.text, words, unspaced)
    const tf = ranges.length
    const score = (tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * lengths[i]!) / avg))
    return { seq: c.seq, text: c.text, score, ranges }
  })
}

interface HitRow {
  seq: number
  id: string
  conversation_id: string
  agent_id: string
  title: string | null
  role: string
  created_at: number
}

export class SearchRepository {
  constructor(
    private readonly db: StoreDb,
    /** Tests shrink the bound of the short-CJK scan to see it hold. */
    private readonly shortScanLimit = SHORT_SCAN_LIMIT
  ) {}

  search(text: string, scope: SearchScope = { kind: 'all' }, options: { limit?: number; filters?: SearchFilters } = {}): SearchHit[] {
    const limit = Math.max(1, Math.min(options.limit ?? 50, 200))
    const words = cleanWords(text)
    if (words.length === 0) return []
    const filters = options.filters ?? {}
    const unspaced = words.some((w) => UNSPACED.test(w))
    const candidates = unspaced ? this.substringCandidates(words, scope, filters) : this.wordCandidates(words, scope, filters)
    const ranked = rank(candidates, words, unspaced)
      .sort((x, y) => y.score - x.score || y.seq - x.seq)
      .slice(0, limit)
    if (ranked.length === 0) return []
    const seqs = ranked.map((c) => c.seq)
    const rows = new Map(
      (
        this.db
          .prepare(
            `SELECT m.seq, m.id, m.conversation_id, m.agent_id, c.title, m.role, m.created_at
               FROM messages m LEFT JOIN conversations c ON c.id = m.conversation_id
              WHERE m.seq IN (${seqs.map(() => '?').join(',')})`
          )
          .all(...seqs) as HitRow[]
      ).map((r) => [r.seq, r])
    )
    return ranked.flatMap(({ seq, text: body, ranges }) => {
      const row = rows.get(seq)
      if (!row) return []
      return [
        {
          messageId: row.id,
          conversationId: row.conversation_id,
          agentId: row.agent_id,
          conversationTitle: row.title ?? '',
          role: row.role as MessageRole,
          createdAt: row.created_at,
          snippet: snippetOf(body, ranges)
        }
      ]
    })
  }

  private filterSql(filters: SearchFilters): { sql: string; params: (string | number)[] } {
    const parts: string[] = []
    const params: (string | number)[] = []
    if (filters.modelId) {
      parts.push('m.model_id = ?')
      params.push(filters.modelId)
    }
    if (filters.from !== undefined) {
      parts.push('m.created_at >= ?')
      params.push(filters.from)
    }
    if (filters.to !== undefined) {
      parts.push('m.created_at < ?')
      params.push(filters.to)
    }
    return { sql: parts.map((p) => ` AND ${p}`).join(''), params }
  }

  private wordCandidates(words: string[], scope: SearchScope, filters: SearchFilters) {
    const query = toFtsQuery(words.join(' '))!
    // Scope is a column filter inside FTS5 (an intersection of posting lists), not a join
    // filter, so a scoped search over a million messages costs about what an unscoped one does.
    const match =
      scope.kind === 'agent'
        ? `text : (${query}) AND agent_id : ${idPhrase(scope.agentId)}`
        : scope.kind === 'conversation'
          ? `text : (${query}) AND conversation_id : ${idPhrase(scope.conversationId)}`
          : `text : (${query})`
    const f = this.filterSql(filters)
    // ORDER BY rowid DESC lets FTS5 walk its index newest first and stop at the candidate limit.
    return this.db
      .prepare(
        `SELECT m.seq AS seq, m.text AS text
           FROM messages_fts JOIN messages m ON m.seq = messages_fts.rowid
          WHERE messages_fts MATCH ?${f.sql}
          ORDER BY messages_fts.rowid DESC
          LIMIT ${CANDIDATES}`
      )
      .all(match, ...f.params) as Candidate[]
  }

  /**
   * Substrings: terms of three or more characters through the trigram index (a quoted string is
   * a run of trigrams), shorter ones as LIKE on the rows it yields. Only-short queries (排序)
   * scan messages newest first, stop at the candidate limit, and look no further back than the
   * newest SHORT_SCAN_LIMIT messages.
   */
  private substringCandidates(words: string[], scope: SearchScope, filters: SearchFilters) {
    const long = words.filter((w) => [...w].length >= 3)
    const short = words.filter((w) => [...w].length < 3)
    const f = this.filterSql(filters)
    const where: string[] = []
    const params: (string | number)[] = []
    for (const w of short) {
      // instr() compares bytes (several times faster than LIKE's per-character folding); LIKE
      // only for a word with letters that have case, where "Js" should find "js".
      if (w.toLowerCase() === w.toUpperCase()) {
        where.push('instr(m.text, ?) > 0')
        params.push(w)
      } else {
        where.push(`m.text LIKE ? ESCAPE '\\'`)
        params.push(`%${escapeLike(w)}%`)
      }
    }
    if (scope.kind === 'agent') {
      where.push('m.agent_id = ?')
      params.push(scope.agentId)
    }
    if (scope.kind === 'conversation') {
      where.push('m.conversation_id = ?')
      params.push(scope.conversationId)
    }
    const extra = where.map((p) => ` AND ${p}`).join('') + f.sql
    return long.length > 0
        ? (this.db
            .prepare(
              `SELECT m.seq AS seq, m.text AS text
                 FROM messages_trigram JOIN messages m ON m.seq = messages_trigram.rowid
                WHERE messages_trigram MATCH ?${extra}
                ORDER BY messages_trigram.rowid DESC
                LIMIT ${CANDIDATES}`
            )
            .all(long.map((w) => `"${w}"`).join(' '), ...params, ...f.params) as Candidate[])
        : (this.db
            .prepare(
              `SELECT m.seq AS seq, m.text AS text FROM messages m
                WHERE ${scope.kind === 'conversation' ? '1' : `m.seq > (SELECT coalesce(max(seq), 0) FROM messages) - ${Math.max(1, Math.floor(this.shortScanLimit))}`}${extra}
                ORDER BY m.seq DESC LIMIT ${CANDIDATES}`
            )
            .all(...params, ...f.params) as Candidate[])
  }
}
