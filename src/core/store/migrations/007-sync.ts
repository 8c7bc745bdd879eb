import type { Migration } from './migration'

const CAPTURED: Array<[table: string, key: string]> = [
  ['agents', 'id'],
  ['conversations', 'id'],
  ['topics', 'id'],
  ['messages', 'id'],
  ['files', 'id'],
  ['image_generations', 'id'],
  ['settings', 'key']
]

// The wall clock in ms as SQLite reads it: when the change was made, not when it is sent.
const NOW_MS = `CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)`

/**
 * Sync's change capture lives in the database, so no feature has to remember to report its
 * writes: triggers put the key of every changed row of a synced table in `sync_outbox` (only
 * while sync is on, and never while sync itself applies another device's changes: no echo).
 * `sync_meta` keeps each record's clock stamps per field; `sync_seen` what was merged from
 * each device; `sync_parked` changes that wait for their parent. Safe to run twice.
 */
export const sync: Migration = {
  version: 7,
  name: 'sync change log',
  up(db) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS sync_control (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        enabled INTEGER NOT NULL DEFAULT 0,
        applying INTEGER NOT NULL DEFAULT 0,
        device_id TEXT,
        device_name TEXT,
        config TEXT,
        next_seq INTEGER NOT NULL DEFAULT 1
      ) STRICT;
      INSERT OR IGNORE INTO sync_control (id) VALUES (1);
      CREATE TABLE IF NOT EXISTS sync_outbox (
        tbl TEXT NOT NULL,
        key TEXT NOT NULL,
        changed_at INTEGER NOT NULL,
        PRIMARY KEY (tbl, key)
      ) STRICT, WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS sync_meta (
        tbl TEXT NOT NULL,
        key TEXT NOT NULL,
        hlcs TEXT NOT NULL DEFAULT '{}',
        hashes TEXT NOT NULL DEFAULT '{}',
        deleted TEXT,
        dirty INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (tbl, key)
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS sync_meta_dirty ON sync_meta(dirty) WHERE dirty = 1;
      CREATE TABLE IF NOT EXISTS sync_seen (
        device TEXT PRIMARY KEY,
        seq INTEGER NOT NULL
      ) STRICT;
      CREATE TABLE IF NOT EXISTS sync_parked (
        tbl TEXT NOT NULL,
        key TEXT NOT NULL,
        change TEXT NOT NULL,
        PRIMARY KEY (tbl, key)
      ) STRICT, WITHOUT ROWID;
    `)
    const capturing = `(SELECT enabled = 1 AND applying = 0 FROM sync_control WHERE id = 1)`
    for (const [table, key] of CAPTURED) {
      for (const [event, row] of [['INSERT', 'new'], ['UPDATE', 'new'], ['DELETE', 'old']] as const) {
        db.exec(`
          CREATE TRIGGER IF NOT EXISTS sync_capture_${table}_${event.toLowerCase()} AFTER ${event} ON ${table}
          WHEN ${capturing}
          BEGIN
            INSERT INTO sync_outbox (tbl, key, changed_at) VALUES ('${table}', ${row}.${key}, ${NOW_MS})
              ON CONFLICT (tbl, key) DO UPDATE SET changed_at = excluded.changed_at;
          END;`)
      }
    }
  }
}
