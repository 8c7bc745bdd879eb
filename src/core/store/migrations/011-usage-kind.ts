import type { Migration } from './migration'

/**
 * Each usage line names what the call asked for (chat, embedding, rerank, speech, transcription,
 * image), so the Usage page and `switchboard usage` total each kind. Only chat replies and images
 * were logged before: the lines already there are chat, except the Images page's ones.
 */
export const usageKind: Migration = {
  version: 11,
  name: 'usage log: kind',
  up(db) {
    // Safe to run again on a database that already has it (a schema version set back).
    const columns = db.prepare('PRAGMA table_info(usage_log)').all() as { name: string }[]
    if (!columns.some((c) => c.name === 'kind')) {
      db.exec("ALTER TABLE usage_log ADD COLUMN kind TEXT NOT NULL DEFAULT 'chat'")
      db.exec("UPDATE usage_log SET kind = 'image' WHERE scene = 'Image Generation'")
    }
    db.exec('CREATE INDEX IF NOT EXISTS usage_log_kind ON usage_log(kind, at)')
  }
}
