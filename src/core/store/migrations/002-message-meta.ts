import type { Migration } from './migration'

/**
 * A message keeps what the user chose for it (thinking, caching, search), the summary
 * of the history it closes, and its translations. One JSON column: these are read with the
 * message and never queried on their own.
 */
export const messageMeta: Migration = {
  version: 2,
  name: 'message-meta',
  up(db) {
    // Idempotent: a database whose version header was rewritten by hand (or a restored copy) may
    // already have the column; adding it twice would stop start-up.
    const columns = db.prepare(`PRAGMA table_info(messages)`).all() as { name: string }[]
    if (!columns.some((c) => c.name === 'meta')) db.exec(`ALTER TABLE messages ADD COLUMN meta TEXT;`)
  }
}
