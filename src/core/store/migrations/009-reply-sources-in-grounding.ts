import type { Migration } from './migration'

interface SourceRow {
  message_id: string
  n: number
  kb_id: string
  file_id: string
  file_name: string
  chunk_id: number
  heading: string | null
  page: number | null
  char_start: number
  char_end: number
  excerpt: string
  score: number | null
}

/**
 * A reply's knowledge sources move into the reply, beside its web citations (`grounding.knowledge`),
 * from the table they were kept in: one concept for what a reply draws on, streamed and stored
 * the same way, and carried with the message by export and sync. The table goes.
 */
export const replySourcesInGrounding: Migration = {
  version: 9,
  name: 'reply sources in the message grounding',
  up(db) {
    const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'kb_reply_sources'").get()
    if (!table) return
    const rows = db.prepare('SELECT * FROM kb_reply_sources ORDER BY message_id, n').all() as SourceRow[]
    const byMessage = new Map<string, SourceRow[]>()
    for (const row of rows) byMessage.set(row.message_id, [...(byMessage.get(row.message_id) ?? []), row])
    const read = db.prepare('SELECT grounding FROM messages WHERE id = ?')
    const write = db.prepare('UPDATE messages SET grounding = ? WHERE id = ?')
    for (const [messageId, sources] of byMessage) {
      const message = read.get(messageId) as { grounding: string | null } | undefined
      if (!message) continue
      const grounding = message.grounding ? (JSON.parse(message.grounding) as Record<string, unknown>) : {}
      grounding.knowledge = sources.map((s) => ({
        n: s.n,
        kbId: s.kb_id,
        fileId: s.file_id,
        fileName: s.file_name,
        chunkId: s.chunk_id,
        heading: s.heading,
        page: s.page,
        charStart: s.char_start,
        charEnd: s.char_end,
        excerpt: s.excerpt,
        ...(typeof s.score === 'number' ? { score: s.score } : {})
      }))
      write.run(JSON.stringify(grounding), messageId)
    }
    db.exec('DROP TABLE kb_reply_sources')
  }
}
