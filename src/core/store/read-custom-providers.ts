import { existsSync } from 'node:fs'
import BetterSqlite3 from 'better-sqlite3'
import { readAppSettings } from '../../shared/data/app-settings'
import type { CustomProvider } from '../../shared/data/custom-provider'
import { databasePath } from './store'

/**
 * The custom providers of a data folder, read without opening the store: the CLI only needs
 * their addresses, and must not take the data lock from a running app or migrate its database.
 * An absent folder or database has none.
 */
export function readCustomProviders(dataDir: string): CustomProvider[] {
  const file = databasePath(dataDir)
  if (!existsSync(file)) return []
  const db = new BetterSqlite3(file, { readonly: true, fileMustExist: true })
  try {
    const row = db.prepare("SELECT value FROM settings WHERE key = 'customProviders'").get() as { value: string } | undefined
    return row ? (readAppSettings({ customProviders: JSON.parse(row.value) as unknown }).customProviders ?? []) : []
  } finally {
    db.close()
  }
}
