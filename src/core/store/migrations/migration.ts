import type { SqliteDb } from '../database'

/** One numbered step of the schema. `up` runs inside a transaction; it never needs `down`: we restore backups instead. */
export interface Migration {
  version: number
  name: string
  up(db: SqliteDb): void
}
