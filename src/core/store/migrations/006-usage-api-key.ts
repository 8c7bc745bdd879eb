import type { Migration } from './migration'

/**
 * Calls made through the local API name the key that made them, so Settings shows each key's
 * spend and the gateway enforces a key's spend cap from the same ledger as the Usage page.
 */
export const usageApiKey: Migration = {
  version: 6,
  name: 'usage log: api key',
  up(db) {
    // Like the earlier steps, safe to run on a database that already has it (a schema version set back).
    const columns = db.prepare('PRAGMA table_info(usage_log)').all() as { name: string }[]
    if (!columns.some((c) => c.name === 'api_key_id')) db.exec('ALTER TABLE usage_log ADD COLUMN api_key_id TEXT')
    db.exec('CREATE INDEX IF NOT EXISTS usage_log_api_key ON usage_log(api_key_id) WHERE api_key_id IS NOT NULL')
  }
}
