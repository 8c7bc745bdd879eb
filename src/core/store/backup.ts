import { mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import type { SqliteDb } from './database'

export const BACKUPS_KEPT = 3
export type BackupReason = 'migration' | 'daily'

export interface BackupInfo {
  file: string
  at: number
  schemaVersion: number
  reason: BackupReason
}

const NAME = /^switchboard-(\d{13})-v(\d+)-(migration|daily)\.db$/

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

/**
 * A consistent copy of the open database (VACUUM INTO sees one snapshot, WAL included).
 * Written under a temporary name and renamed, so a half-written copy is never taken for a
 * backup. Keeps the newest `BACKUPS_KEPT`.
 */
export function makeBackup(sqlite: SqliteDb, dataDir: string, reason: BackupReason, schemaVersion: number, now = Date.now()): BackupInfo {
  const dir = backupsDir(dataDir)
  mkdirSync(dir, { recursive: true })
  // Two backups in one millisecond would share a name; move on by a millisecond.
  let at = now
  while (listBackups(dataDir).some((b) => b.at === at)) at++
  const file = join(dir, `switchboard-${String(at).padStart(13, '0')}-v${schemaVersion}-${reason}.db`)
  const partial = `${file}.partial`
  rmSync(partial, { force: true })
  sqlite.prepare('VACUUM INTO ?').run(partial)
  renameSync(partial, file)
  pruneBackups(dataDir)
  return { file, at, schemaVersion, reason }
}

export function pruneBackups(dataDir: string, keep = BACKUPS_KEPT): void {
  for (const old of listBackups(dataDir).slice(keep)) rmSync(old.file, { force: true })
}

export const fileSize = (file: string) => {
  try {
    return statSync(file).size
  } catch {
    return 0
  }
}
