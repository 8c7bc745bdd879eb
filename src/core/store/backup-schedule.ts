import { countData, holdsData, inspectBackup, listBackups, makeBackup, type BackupReason } from './backup'
import type { StoreDb } from './database'

export interface BackupScheduleOptions {
  /** With no backup holding data yet, the first one is made after this many writes. */
  firstAfterWrites?: number
  /** While data changes, a backup at most this often (default an hour). */
  everyMs?: number
  now?: () => number
}

/**
 * When to copy the database: only when there is something to keep. The first backup comes
 * after the first few writes (not at first start, when the database is empty); then hourly
 * while data changes, and on quit when anything changed since the last one. A failed backup
 * never fails the write that triggered it: it is kept in `lastError` and tried again later.
 */
export class BackupSchedule {
  private writesSince = 0
  private pending = false
  private stopped = false
  private hasDataBackup: boolean
  private timer: ReturnType<typeof setInterval> | undefined
  private readonly firstAfter: number
  private readonly now: () => number
  lastError: unknown

  constructor(
    private readonly db: StoreDb,
    private readonly dataDir: string,
    private readonly schemaVersion: () => number,
    options: BackupScheduleOptions = {}
  ) {
    this.firstAfter = options.firstAfterWrites ?? 20
    this.now = options.now ?? Date.now
    this.hasDataBackup = listBackups(dataDir).some((b) => holdsData(inspectBackup(b.file)))
    const everyMs = options.everyMs ?? 60 * 60 * 1000
    if (everyMs > 0) {
      this.timer = setInterval(() => {
        if (this.writesSince > 0 && !this.db.sqlite.inTransaction) this.backup('auto')
      }, everyMs)
      this.timer.unref?.()
    }
  }

  /** Called by the store after each statement that changed rows. */
  noteWrite(): void {
    this.writesSince++
    if (this.hasDataBackup || this.writesSince < this.firstAfter || this.pending) return
    // Not inside the write's transaction (VACUUM INTO cannot run there): once it has ended.
    this.pending = true
    setImmediate(() => {
      this.pending = false
      if (!this.stopped && !this.hasDataBackup && !this.db.sqlite.inTransaction) this.backup('auto')
    }).unref?.()
  }

  /** On quit: keep what changed since the last backup. */
  close(): void {
    const wasRunning = !this.stopped
    this.stop()
    if (wasRunning && this.writesSince > 0) this.backup('quit')
  }

  /** No more automatic backups (not even on quit). */
  stop(): void {
    this.stopped = true
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
  }

  /** Makes a backup now if the database holds data. Returns whether one was made. */
  backup(reason: BackupReason): boolean {
    try {
      if (!this.db.sqlite.open || !holdsData(countData(this.db.sqlite))) return false
      makeBackup(this.db.sqlite, this.dataDir, reason, this.schemaVersion(), this.now())
      this.writesSince = 0
      this.hasDataBackup = true
      this.lastError = undefined
      return true
    } catch (error) {
      this.lastError = error
      return false
    }
  }
}
