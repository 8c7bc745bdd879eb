import { makeBackup, type BackupInfo } from './backup'
import type { SqliteDb } from './database'
import { storeError, StoreErrorType } from './errors'
import { migrations as allMigrations, LATEST_SCHEMA_VERSION } from './migrations'
import type { Migration } from './migrations/migration'

export const readSchemaVersion = (sqlite: SqliteDb): number => sqlite.pragma('user_version', { simple: true }) as number

export function newerDatabaseError(found: number, latest: number, dataDir: string) {
  return storeError(
    StoreErrorType.NewerDatabase,
    `The database in ${dataDir} was written by a newer version of Switchboard (schema ${found}; this version understands up to ${latest}). ` +
      'Upgrade Switchboard to open it. Your data has not been changed.',
    409,
    { found, latest }
  )
}

export interface MigrationResult {
  from: number
  to: number
  backups: BackupInfo[]
}

/**
 * Brings the schema to the newest version, one numbered step at a time. Each step runs in
 * its own transaction and, when there is data to lose, after a backup of the file.
 */
export function migrate(sqlite: SqliteDb, dataDir: string, list: readonly Migration[] = allMigrations): MigrationResult {
  const latest = list.length > 0 ? list[list.length - 1]!.version : LATEST_SCHEMA_VERSION
  const from = readSchemaVersion(sqlite)
  if (from > latest) throw newerDatabaseError(from, latest, dataDir)
  const backups: BackupInfo[] = []
  let current = from
  for (const step of list) {
    if (step.version <= current) continue
    // A database created by this run has nothing to lose yet: only an existing one is backed up.
    if (from > 0 && current > 0) backups.push(makeBackup(sqlite, dataDir, 'migration', current))
    sqlite.transaction(() => {
      step.up(sqlite)
      sqlite.pragma(`user_version = ${step.version}`)
    })()
    current = step.version
  }
  return { from, to: current, backups }
}
