import type { MessageRole } from '../../../shared/data/message'
import type { SearchHit, SearchScope, SnippetRun } from '../../../shared/data/search'
import type { StoreDb } from '../database'

// Private-use characters mark matches inside snippet(); they cannot occur in the
// tokens FTS5 matched, and are split out below so the renderer gets plain runs, never HTML.
const OPEN = '\uE000'
const CLOSE = '\uE001'

/** A last word shorter than this matches whole: "w" or "da" as prefixes match half the index and say little. */
const MIN_PREFIX = 3

/**
 * Turns what a person typed into an FTS5 query that cannot be a syntax error: every word
 * is a quoted string (all must match), and the last word, if long enough, matches as a
 * prefix while typing.
 */
export function toFtsQuery(text: string): string | undefined {
  const words = text
    .split(/\s+/)
    .map((w) => w.replace(/["\uE000\uE001]/g, '').trim())
    .filter((w) => /[\p{L}\p{N}]/u.test(w))
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

interface HitRow {
  id: string
  conversation_id: string
  agent_id: string
  title: string | null
  role: string
  created_at: number
  snippet: string
}

/** Full-text search over message text; newest matches first. */
export class SearchRepository {
  constructor(private readonly db: StoreDb) {}

  search(text: string, scope: SearchScope = { kind: 'all' }, options: { limit?: number } = {}): SearchHit[] {
    const words = toFtsQuery(text)
    if (!words) return []
    const limit = Math.max(1, Math.min(options.limit ?? 50, 200))
    // Scope is a column filter inside FTS5 (an intersection of posting lists), not a join
    // filter, so a scoped search over a million messages costs about what an unscoped one does.
    const scoped =
      scope.kind === 'agent'
        ? `text : (${words}) AND agent_id : ${idPhrase(scope.agentId)}`
        : scope.kind === 'conversation'
          ? `text : (${words}) AND conversation_id : ${idPhrase(scope.conversationId)}`
          : `text : (${words})`
    // ORDER BY rowid DESC lets FTS5 walk its index newest first and stop at the limit;
    // ranking every match by bm25 would read all of them.
    const rows = this.db
      .prepare(
        `SELECT m.id, m.conversation_id, m.agent_id, c.title, m.role, m.created_at,
                snippet(messages_fts, 0, '${OPEN}', '${CLOSE}', '…', 16) AS snippet
           FROM messages_fts
           JOIN messages m ON m.seq = messages_fts.rowid
           LEFT JOIN conversations c ON c.id = m.conversation_id
          WHERE messages_fts MATCH ?
          ORDER BY messages_fts.rowid DESC
          LIMIT ?`
      )
      .all(scoped, limit) as HitRow[]
    return rows.map((row) => ({
      messageId: row.id,
      conversationId: row.conversation_id,
      agentId: row.agent_id,
      conversationTitle: row.title ?? '',
      role: row.role as MessageRole,
      createdAt: row.created_at,
      snippet: toSnippetRuns(row.snippet)
    }))
  }
}
