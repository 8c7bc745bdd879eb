import type { Migration } from './migration'

/**
 * A deletion is kept as a tombstone until every device has seen it; then it can go. To know
 * when, each tombstone records where it was first published: `gone_after` is the smallest
 * knowledge that implies it, as `{ device: segment }` (our own segment once pushed, the
 * segment it came in, or the covers of the snapshot it came in). A tombstone without it (from
 * before this step) is kept.
 */
export const syncTombstoneOrigin: Migration = {
  version: 8,
  name: 'sync: where each tombstone was published',
  up(db) {
    const columns = db.prepare('PRAGMA table_info(sync_meta)').all() as { name: string }[]
    if (!columns.some((c) => c.name === 'gone_after')) db.exec('ALTER TABLE sync_meta ADD COLUMN gone_after TEXT')
    db.exec('CREATE INDEX IF NOT EXISTS sync_meta_tombstones ON sync_meta(tbl) WHERE deleted IS NOT NULL AND gone_after IS NOT NULL')
  }
}
