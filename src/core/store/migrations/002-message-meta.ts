import type { Migration } from './migration'

/**
 * Issue 15: a message keeps what the user chose for it (thinking, caching, search), the summary
 * of the history it closes, and its translations. One JSON column: these are read with the
 * message and never queried on their own.
 */
export const messageMeta: Migration = {
  version: 2,
  name: 'message-meta',
  up(db) {
    db.exec(`ALTER TABLE messages ADD COLUMN meta TEXT;`)
  }
}
