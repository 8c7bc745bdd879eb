import { chmodSync, closeSync, copyFileSync, existsSync, fstatSync, openSync, readSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { countData, describeCounts, holdsData, inspectBackup, listBackups, type BackupInfo, type DataCounts } from './backup'
import { BackupSchedule, type BackupScheduleOptions } from './backup-schedule'
import { acquireDataLock, type DataLock } from './data-lock'
import { undoInterruptedImports } from './import-file'
import { ensurePrivateDir, PRIVATE_FILE_MODE, tightenDataFolder } from '../files/private-files'
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
  /**
   * A start-up backup when the database holds data and the newest backup is older than this
   * (default a day). 0 turns automatic backups off altogether (tests that count backups).
   */
  dailyBackupMs?: number
  /** When to back up while running (first after N writes, hourly while data changes, on quit). */
  backupSchedule?: BackupScheduleOptions
  now?: () => number
  report?: (detail: string) => void
  /** Who takes the data-folder lock, for the message a second process shows ("the desktop app"…). */
  lockOwner?: string
}

export interface OpenedStore {
  store: Store
  /** What the user should read once: a restore from backup, interrupted replies. */
  notices: string[]
}

const DAY = 24 * 60 * 60 * 1000
const SIDE_FILES = ['', '-wal', '-shm'] as const

/**
 * Start-up of the local data: check the folder, refuse a newer database untouched, treat an
 * empty or truncated file next to backups that hold data as damage, run quick_check, recover
 * from corruption with the newest backup that holds data, migrate (backing up first), and
 * repair what a crash left behind.
 */
export function openStore(options: OpenStoreOptions): OpenedStore {
  const { dataDir } = options
  const list = options.migrations ?? allMigrations
  const latest = list[list.length - 1]?.version ?? 0
  const now = options.now ?? Date.now
  const report = options.report ?? (() => undefined)
  const notices: string[] = []
  const file = databasePath(dataDir)

  let lock: DataLock | undefined
  try {
    ensureWritableFolder(dataDir)
    // One owner per data folder: a second process would mark this one's replies interrupted and
    // have its later writes dropped. Held until the store closes (re-entrant within a process).
    lock = acquireDataLock(dataDir, options.lockOwner)
    tightenDataFolder(dataDir)
    if (existsSync(file)) {
      report('Checking the database')
      const found = peekSchemaVersion(file)
      if (found === 'corrupt') notices.push(recoverFromCorruption(dataDir, now(), 'damaged'))
      else if (found === 'truncated') notices.push(recoverFromCorruption(dataDir, now(), 'truncated'))
      else if (found === 'empty') {
        // A 0-byte file is what a crash or a full disk leaves; with backups that hold data it is damage, not a new user.
        if (listBackups(dataDir).some((b) => holdsData(inspectBackup(b.file)))) notices.push(recoverFromCorruption(dataDir, now(), 'empty'))
      } else if (found > latest) throw newerDatabaseError(found, latest, dataDir)
    }
    let store: Store
    try {
      store = openChecked(file, dataDir, list, report, notices)
    } catch (error) {
      if (!(error instanceof CorruptDatabase) && !isCorruption(error)) throw error
      // Damage can show at any step (quick_check, a migration, the repair): recover once and start over.
      notices.push(recoverFromCorruption(dataDir, now(), 'damaged'))
      store = openChecked(file, dataDir, list, report, notices)
    }
    if (existsSync(file)) chmodSync(file, PRIVATE_FILE_MODE)
    store.lock = lock

    const dailyMs = options.dailyBackupMs ?? DAY
    if (dailyMs > 0) {
      const version = () => readSchemaVersion(store.db.sqlite)
      const schedule = new BackupSchedule(store.db, dataDir, version, { now, ...options.backupSchedule })
      store.backups = schedule
      store.db.watchWrites(() => schedule.noteWrite())
      const backups = listBackups(dataDir)
      const stale = !backups[0] || now() - backups[0].at > dailyMs
      if (holdsData(countData(store.db.sqlite)) && (stale || !backups.some((b) => holdsData(inspectBackup(b.file))))) {
        // A failed backup must not stop the app from opening: say so and carry on.
        if (!schedule.backup('daily')) notices.push(`Switchboard could not back up your data: ${sentence(describeError(schedule.lastError, dataDir))}. It will try again later.`)
      }
    }
    return { store, notices }
  } catch (error) {
    lock?.release()
    throw toStoreError(error, dataDir, 'open')
  }
}

const describeError = (error: unknown, dataDir: string): string => {
  const mapped = toStoreError(error, dataDir)
  return mapped instanceof Error ? mapped.message : String(mapped)
}

const sentence = (text: string) => text.trim().replace(/\.+$/, '')

class CorruptDatabase extends Error {
  readonly code = 'SQLITE_CORRUPT'
}

function openChecked(file: string, dataDir: string, list: readonly Migration[], report: (detail: string) => void, notices: string[]): Store {
  // Created owner-only before SQLite opens it: SQLite gives -wal and -shm the database's mode.
  if (!existsSync(file)) closeSync(openSync(file, 'a', PRIVATE_FILE_MODE))
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
    // An import killed midway: take out what it had added, so the data is as before it.
    if (undoInterruptedImports(sqlite) > 0) notices.push('An import was interrupted when Switchboard last closed. What it had added was removed, so your data is as it was before the import.')
    // A flipped byte inside a row passes quick_check; find such rows so the user hears of them once.
    const damaged = store.damagedMessages().length
    if (damaged > 0)
      notices.push(
        `${damaged === 1 ? 'One message was' : `${damaged} messages were`} damaged on disk. ${damaged === 1 ? 'It shows' : 'They show'} as damaged with what could be recovered; the rest of ${damaged === 1 ? 'its conversation' : 'their conversations'} opens normally, and export leaves ${damaged === 1 ? 'it' : 'them'} out and lists ${damaged === 1 ? 'it' : 'them'}.`
      )
    return store
  } catch (error) {
    sqlite.close()
    throw error
  }
}

function ensureWritableFolder(dataDir: string): void {
  ensurePrivateDir(dataDir)
  // access(W_OK) says yes to root on a read-only mount; a real write does not lie.
  const probe = join(dataDir, `.write-test-${process.pid}`)
  writeFileSync(probe, '')
  rmSync(probe, { force: true })
}

/**
 * The schema version from the file header (user_version, bytes 60–63), read without SQLite:
 * even a read-only open would create -wal/-shm files, and a newer database must stay untouched.
 * Also tells an empty (0-byte) file and one shorter than its header says (truncated) apart.
 */
function peekSchemaVersion(file: string): number | 'corrupt' | 'empty' | 'truncated' {
  const header = Buffer.alloc(100)
  const fd = openSync(file, 'r')
  let read: number
  let size: number
  try {
    read = readSync(fd, header, 0, 100, 0)
    size = fstatSync(fd).size
  } finally {
    closeSync(fd)
  }
  // A SIGKILL during a checkpoint can leave page 1 (with the new page count) written before the
  // pages after it, or a new file whose first pages live only in the WAL. SQLite finishes both
  // from the -wal file on open, so with frames in the WAL neither is damage: quick_check decides.
  const walFrames = walHasFrames(file)
  if (read === 0) return walFrames ? 0 : 'empty'
  if (read < 100 || header.toString('latin1', 0, 16) !== 'SQLite format 3\u0000') return 'corrupt'
  // The in-header page count is valid when its "version-valid-for" matches the change counter.
  const rawPageSize = header.readUInt16BE(16)
  const pageSize = rawPageSize === 1 ? 65536 : rawPageSize
  const pages = header.readUInt32BE(28)
  if (!walFrames && pages > 0 && header.readUInt32BE(92) === header.readUInt32BE(24) && size < pages * pageSize) return 'truncated'
  return header.readUInt32BE(60)
}

/** True when the database's -wal file holds more than its 32-byte header (frames to replay). */
function walHasFrames(file: string): boolean {
  try {
    return statSync(`${file}-wal`).size > 32
  } catch {
    return false
  }
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

export type Damage = 'damaged' | 'truncated' | 'empty'

const WHAT_HAPPENED: Record<Damage, string> = {
  damaged: 'Your database was damaged',
  truncated: 'Your database file was cut short (truncated)',
  empty: 'Your database file was empty (0 bytes) although your backups hold data'
}

/**
 * Moves the damaged files aside (never deletes them) and puts the newest backup that holds
 * data in its place. Returns the notice that says what happened, what the restored backup
 * holds, and where the old file is: never "restored" about a backup made before anything
 * was saved.
 */
export function recoverFromCorruption(dataDir: string, at: number, damage: Damage = 'damaged'): string {
  const file = databasePath(dataDir)
  const asideDir = join(dataDir, 'damaged')
  ensurePrivateDir(asideDir)
  const stamp = new Date(at).toISOString().replace(/[:.]/g, '-')
  const aside = join(asideDir, `switchboard-${stamp}.db`)
  for (const suffix of SIDE_FILES) {
    if (existsSync(file + suffix)) renameSync(file + suffix, aside + suffix)
  }
  const what = WHAT_HAPPENED[damage]
  const usable = listBackups(dataDir)
    .map((backup) => ({ backup, counts: inspectBackup(backup.file, true) }))
    .filter((b): b is { backup: BackupInfo; counts: DataCounts } => b.counts !== undefined)
  const chosen = usable.find((b) => holdsData(b.counts))
  if (!chosen) {
    if (usable.length > 0)
      return `${what}, and no backup held any of your data (they were made before anything was saved), so Switchboard started with an empty one. The damaged file is kept at ${aside}.`
    return `${what} and no backup could be used, so Switchboard started with an empty one. The damaged file is kept at ${aside}.`
  }
  copyFileSync(chosen.backup.file, file)
  chmodSync(file, PRIVATE_FILE_MODE)
  return (
    `${what}, so Switchboard restored the backup from ${new Date(chosen.backup.at).toISOString().slice(0, 16).replace('T', ' ')} UTC, which holds ${describeCounts(chosen.counts)}. ` +
    `Changes made after that backup are not in it; the damaged file is kept at ${aside}.`
  )
}
