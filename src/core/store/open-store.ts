import { closeSync, copyFileSync, existsSync, mkdirSync, openSync, readSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { listBackups, makeBackup, type BackupInfo } from './backup'
import { openSqlite, StoreDb, type SqliteDb } from './database'
import { isCorruption, toStoreError } from './errors'
import { migrate, newerDatabaseError, readSchemaVersion } from './migrate'
import { migrations as allMigrations } from './migrations'
import type { Migration } from './migrations/migration'
import { databasePath, Store } from './store'

export interface OpenStoreOptions {
  dataDir: string
  /** Tests pass their own list to exercise backups across several steps. */
  migrations?: readonly Migration[]
  /** Make a backup at start-up when the newest is older than this (default a day; 0 turns it off). */
  dailyBackupMs?: number
  now?: () => number
  report?: (detail: string) => void
}

export interface OpenedStore {
  store: Store
  /** What the user should read once: a restore from backup, interrupted replies. */
  notices: string[]
}

const DAY = 24 * 60 * 60 * 1000
const SIDE_FILES = ['', '-wal', '-shm'] as const

/**
 * Start-up of the local data: check the folder, refuse a newer database untouched, run
 * quick_check, recover from corruption with the newest good backup, migrate (backing up
 * first), and repair what a crash left behind.
 */
export function openStore(options: OpenStoreOptions): OpenedStore {
  const { dataDir } = options
  const list = options.migrations ?? allMigrations
  const latest = list[list.length - 1]?.version ?? 0
  const now = options.now ?? Date.now
  const report = options.report ?? (() => undefined)
  const notices: string[] = []
  const file = databasePath(dataDir)

  try {
    ensureWritableFolder(dataDir)
    if (existsSync(file)) {
      report('Checking the database')
      const found = peekSchemaVersion(file)
      if (found === 'corrupt') notices.push(recoverFromCorruption(dataDir, now()))
      else if (found > latest) throw newerDatabaseError(found, latest, dataDir)
    }
    let store: Store
    try {
      store = openChecked(file, dataDir, list, report, notices)
    } catch (error) {
      if (!(error instanceof CorruptDatabase) && !isCorruption(error)) throw error
      // Damage can show at any step (quick_check, a migration, the repair): recover once and start over.
      notices.push(recoverFromCorruption(dataDir, now()))
      store = openChecked(file, dataDir, list, report, notices)
    }

    const dailyMs = options.dailyBackupMs ?? DAY
    const newest = listBackups(dataDir)[0]
    const version = readSchemaVersion(store.db.sqlite)
    if (dailyMs > 0 && version > 0 && (!newest || now() - newest.at > dailyMs)) makeBackup(store.db.sqlite, dataDir, 'daily', version, now())
    return { store, notices }
  } catch (error) {
    throw toStoreError(error, dataDir, 'open')
  }
}

class CorruptDatabase extends Error {
  readonly code = 'SQLITE_CORRUPT'
}

function openChecked(file: string, dataDir: string, list: readonly Migration[], report: (detail: string) => void, notices: string[]): Store {
  const sqlite = openSqlite(file)
  try {
    if (!quickCheckOk(sqlite)) throw new CorruptDatabase('quick_check failed')
    report('Updating the database')
    migrate(sqlite, dataDir, list)
    const store = new Store(new StoreDb(sqlite, (error) => toStoreError(error, dataDir)), dataDir)
    const interrupted = store.messages.repairStreaming()
    if (interrupted > 0)
      notices.push(
        interrupted === 1
          ? 'One reply was interrupted when Switchboard last closed; it is kept as far as it got.'
          : `${interrupted} replies were interrupted when Switchboard last closed; they are kept as far as they got.`
      )
    store.images.repairUnfinished()
    return store
  } catch (error) {
    sqlite.close()
    throw error
  }
}

function ensureWritableFolder(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true })
  // access(W_OK) says yes to root on a read-only mount; a real write does not lie.
  const probe = join(dataDir, `.write-test-${process.pid}`)
  writeFileSync(probe, '')
  rmSync(probe, { force: true })
}

/**
 * The schema version from the file header (user_version, bytes 60–63), read without SQLite:
 * even a read-only open would create -wal/-shm files, and a newer database must stay untouched.
 */
function peekSchemaVersion(file: string): number | 'corrupt' {
  const header = Buffer.alloc(100)
  const fd = openSync(file, 'r')
  let read: number
  try {
    read = readSync(fd, header, 0, 100, 0)
  } finally {
    closeSync(fd)
  }
  if (read === 0) return 0
  if (read < 100 || header.toString('latin1', 0, 16) !== 'SQLite format 3\u0000') return 'corrupt'
  return header.readUInt32BE(60)
}

function quickCheckOk(sqlite: SqliteDb): boolean {
  try {
    const rows = sqlite.pragma('quick_check') as Array<{ quick_check: string }>
    return rows.length === 1 && rows[0]!.quick_check === 'ok'
  } catch (error) {
    const code = (error as { code?: string }).code
    if (code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB') return false
    throw error
  }
}

function backupIsGood(backup: BackupInfo): boolean {
  let sqlite: SqliteDb | undefined
  try {
    sqlite = openSqlite(backup.file, { readonly: true, fileMustExist: true })
    return quickCheckOk(sqlite)
  } catch {
    return false
  } finally {
    sqlite?.close()
  }
}

/**
 * Moves the damaged files aside (never deletes them) and puts the newest good backup in
 * their place. Returns the notice that tells the user what happened and where the old file is.
 */
export function recoverFromCorruption(dataDir: string, at: number): string {
  const file = databasePath(dataDir)
  const asideDir = join(dataDir, 'damaged')
  mkdirSync(asideDir, { recursive: true })
  const stamp = new Date(at).toISOString().replace(/[:.]/g, '-')
  const aside = join(asideDir, `switchboard-${stamp}.db`)
  for (const suffix of SIDE_FILES) {
    if (existsSync(file + suffix)) renameSync(file + suffix, aside + suffix)
  }
  const backup = listBackups(dataDir).find(backupIsGood)
  if (!backup) {
    return `Your database was damaged and no backup could be used, so Switchboard started with an empty one. The damaged file is kept at ${aside}.`
  }
  copyFileSync(backup.file, file)
  return (
    `Your database was damaged, so Switchboard restored the backup from ${new Date(backup.at).toISOString().slice(0, 16).replace('T', ' ')} UTC. ` +
    `Changes made after that backup are not in it; the damaged file is kept at ${aside}.`
  )
}

