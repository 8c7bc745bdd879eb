import { chmodSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { openSqlite, type SqliteDb } from './database'
import { PRIVATE_FILE_MODE, ensurePrivateDir } from '../files/private-files'

/** At most this many backups are kept (newest first)… */
export const BACKUPS_KEPT = 8
/** …and none older than this, except the newest few and the newest that holds data. */
export const BACKUP_MAX_AGE_MS = 30 * 24 * 60 * 60 * 1000
/** Always kept whatever their age, so a user away for a month still has something to go back to. */
export const BACKUPS_ALWAYS_KEPT = 3

/** `manual`: Back up now on the Data page; `restore`: the copy of the current data a restore makes first. */
export type BackupReason = 'migration' | 'daily' | 'auto' | 'quit' | 'manual' | 'restore'

export interface BackupInfo {
  file: string
  at: number
  schemaVersion: number
  reason: BackupReason
}

/** What a database file holds, counted from its tables. */
export interface DataCounts {
  /** Start-up creates one default agent; only more than that is the user's. */
  agents: number
  conversations: number
  messages: number
  /** Provider settings and app settings rows: also worth keeping (base URLs, choices). */
  settings: number
}

const NAME = /^switchboard-(\d{13})-v(\d+)-(migration|daily|auto|quit|manual|restore)\.db$/

export const backupsDir = (dataDir: string) => join(dataDir, 'backups')

/** Newest first. */
export function listBackups(dataDir: string): BackupInfo[] {
  let names: string[]
  try {
    names = readdirSync(backupsDir(dataDir))
  } catch {
    return []
  }
  const found: BackupInfo[] = []
  for (const name of names) {
    const match = NAME.exec(name)
    if (!match) continue
    found.push({ file: join(backupsDir(dataDir), name), at: Number(match[1]), schemaVersion: Number(match[2]), reason: match[3] as BackupReason })
  }
  return found.sort((a, b) => b.at - a.at)
}

const countOf = (sqlite: SqliteDb, table: string): number => {
  try {
    return (sqlite.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n
  } catch {
    return 0 // a table an older schema did not have yet
  }
}

/** What an open database holds. */
export function countData(sqlite: SqliteDb): DataCounts {
  return {
    agents: countOf(sqlite, 'agents'),
    conversations: countOf(sqlite, 'conversations'),
    messages: countOf(sqlite, 'messages'),
    settings: countOf(sqlite, 'provider_settings') + countOf(sqlite, 'settings')
  }
}

export const holdsData = (counts: DataCounts | undefined): boolean =>
  counts !== undefined && counts.agents > 1 || (counts !== undefined && counts.conversations + counts.messages + counts.settings > 0)

/**
 * What a backup file holds, or undefined when it cannot be read (or, with `check`, fails
 * quick_check: worth it before a restore, too slow for every prune).
 */
export function inspectBackup(file: string, check = false): DataCounts | undefined {
  let sqlite: SqliteDb | undefined
  try {
    sqlite = openSqlite(file, { readonly: true, fileMustExist: true })
    if (check) {
      const rows = sqlite.pragma('quick_check') as Array<{ quick_check: string }>
      if (rows.length !== 1 || rows[0]!.quick_check !== 'ok') return undefined
    }
    return countData(sqlite)
  } catch {
    return undefined
  } finally {
    sqlite?.close()
  }
}

/** "3 conversations and 41 messages", for notices. */
export function describeCounts(counts: DataCounts): string {
  const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`
  return `${plural(counts.conversations, 'conversation')} and ${plural(counts.messages, 'message')}`
}

/**
 * A consistent copy of the open database (VACUUM INTO sees one snapshot, WAL included).
 * Written under a temporary name and renamed, so a half-written copy is never taken for a
 * backup; readable by the owner only. Then prunes (see `pruneBackups`).
 */
export function makeBackup(sqlite: SqliteDb, dataDir: string, reason: BackupReason, schemaVersion: number, now = Date.now()): BackupInfo {
  const dir = backupsDir(dataDir)
  ensurePrivateDir(dir)
  // Two backups in one millisecond would share a name; move on by a millisecond.
  let at = now
  while (listBackups(dataDir).some((b) => b.at === at)) at++
  const file = join(dir, `switchboard-${String(at).padStart(13, '0')}-v${schemaVersion}-${reason}.db`)
  const partial = `${file}.partial`
  rmSync(partial, { force: true })
  try {
    sqlite.prepare('VACUUM INTO ?').run(partial)
    chmodSync(partial, PRIVATE_FILE_MODE)
    renameSync(partial, file)
  } catch (error) {
    rmSync(partial, { force: true })
    throw error
  }
  pruneBackups(dataDir, { now })
  return { file, at, schemaVersion, reason }
}

/**
 * Keeps the newest `keep`, drops those older than `maxAgeMs` beyond the newest
 * `BACKUPS_ALWAYS_KEPT`, and never drops the newest backup that holds data: an empty
 * database's backups must not rotate the last good one away.
 */
export function pruneBackups(dataDir: string, options: { keep?: number; maxAgeMs?: number; now?: number } = {}): void {
  const keep = options.keep ?? BACKUPS_KEPT
  const maxAge = options.maxAgeMs ?? BACKUP_MAX_AGE_MS
  const now = options.now ?? Date.now()
  const all = listBackups(dataDir)
  const doomed = all.filter((b, i) => i >= keep || (i >= BACKUPS_ALWAYS_KEPT && now - b.at > maxAge))
  if (doomed.length === 0) return
  const newestWithData = all.find((b) => holdsData(inspectBackup(b.file)))
  for (const old of doomed) if (old !== newestWithData) rmSync(old.file, { force: true })
}

export const fileSize = (file: string) => {
  try {
    return statSync(file).size
  } catch {
    return 0
  }
}
