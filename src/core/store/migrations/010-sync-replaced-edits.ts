import type { Migration } from './migration'

/**
 * Where two devices changed the same field, the later edit is kept on both; the value it replaced
 * on this device is kept in `sync_replaced` (the newest 100), so the user can see it and bring it
 * back (Settings → Sync). This device's own table: it is not synced.
 *
 * To tell such a conflict from an edit made after seeing this device's value, each local edit
 * not yet sent remembers, per field, the stamp it replaced (`sync_meta.bases`); it travels with
 * the change, and the receiver compares it with what it holds.
 */
export const syncReplacedEdits: Migration = {
  version: 10,
  name: 'sync: edits replaced by a later one from another device',
  up(db) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS sync_replaced (
        id INTEGER PRIMARY KEY,
        tbl TEXT NOT NULL,
        key TEXT NOT NULL,
        field TEXT NOT NULL,
        replaced TEXT NOT NULL,
        kept TEXT NOT NULL,
        kept_by TEXT NOT NULL,
        at INTEGER NOT NULL
      ) STRICT;
    `)
    const columns = db.prepare('PRAGMA table_info(sync_meta)').all() as { name: string }[]
    if (!columns.some((c) => c.name === 'bases')) db.exec('ALTER TABLE sync_meta ADD COLUMN bases TEXT')
  }
}
