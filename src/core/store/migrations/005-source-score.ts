import type { Migration } from './migration'

/**
 * The retrieval score of each reply source, shown when the pointer rests on the source (how
 * strongly the search ranked it). Sources saved before have none, and show none.
 */
export const sourceScore: Migration = {
  version: 5,
  name: 'reply source score',
  up(db) {
    // Like the earlier steps, safe to run on a database that already has it (a schema version set back).
    const columns = db.prepare('PRAGMA table_info(kb_reply_sources)').all() as { name: string }[]
    if (!columns.some((c) => c.name === 'score')) db.exec('ALTER TABLE kb_reply_sources ADD COLUMN score REAL')
  }
}
