import type { Migration } from './migration'

/**
 * Calls made through the local API name the key that made them, so Settings shows each key's
 * spend and the gateway enforces a key's spend cap from the same ledger as the Usage page.
 */
export const usageApiKey: Migration = {
  version: 6,
  name: 'usage log: api key',
  up(db) {
    db.exec(`
      ALTER TABLE usage_log ADD COLUMN api_key_id TEXT;
      CREATE INDEX usage_log_api_key ON usage_log(api_key_id) WHERE api_key_id IS NOT NULL;
    `)
  }
}
