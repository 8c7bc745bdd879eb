import { join } from 'node:path'
import type { StoreDb } from './database'
import { exportData, importData, parseExportFile, type DamagedRow, type ImportOptions } from './export-import'
import { DAMAGED_MESSAGES_SQL } from './repositories/message-rows'
import type { ExportFile, ImportReport } from '../../shared/data/export-file'
import { AgentsRepository } from './repositories/agents'
import { ConversationsRepository } from './repositories/conversations'
import { FilesRepository } from './repositories/files'
import { ImageGenerationsRepository } from './repositories/image-generations'
import { MessagesRepository } from './repositories/messages'
import { ProviderSettingsRepository } from './repositories/provider-settings'
import { SearchRepository } from './repositories/search'
import { SettingsRepository } from './repositories/settings'
import { UsageLogRepository } from './repositories/usage-log'
import { toStoreError } from './errors'
import type { BackupSchedule } from './backup-schedule'
import type { DataLock } from './data-lock'

export const DATABASE_FILE = 'switchboard.db'
export const databasePath = (dataDir: string) => join(dataDir, DATABASE_FILE)

/**
 * A part that keeps state about the database beside it (sync: its stamps, segment numbers and
 * what it merged live in the file), told around a restore that replaces the data in place.
 */
export interface RestoreWatcher {
  /** Before the data is replaced: stop writing to it (and finish what is running); throws to refuse the restore. */
  before(): Promise<void>
  /** After: `replaced` false when the restore failed (or was refused) before the data changed. */
  after(replaced: boolean): Promise<void>
}

/**
 * How long a restore waits for what writes the data to stop (a reply, an indexing run, a sync
 * round) before it refuses with ImportBusy: the work goes on, and nothing is restored.
 */
export const RESTORE_WAIT_MS = 15_000

/** The local data: one connection, one repository per entity. Services call these; handlers map them to the bridge. */
export class Store {
  readonly agents: AgentsRepository
  readonly conversations: ConversationsRepository
  readonly messages: MessagesRepository
  readonly files: FilesRepository
  readonly images: ImageGenerationsRepository
  readonly providers: ProviderSettingsRepository
  readonly usage: UsageLogRepository
  readonly settings: SettingsRepository
  readonly search: SearchRepository
  /** Automatic backups (set by openStore; absent when a test builds a Store by hand). */
  backups: BackupSchedule | undefined
  /** The data-folder lock (set by openStore), released on close. */
  lock: DataLock | undefined
  private readonly restoreWatchers = new Set<RestoreWatcher>()

  constructor(
    readonly db: StoreDb,
    readonly dataDir: string
  ) {
    this.agents = new AgentsRepository(db)
    this.conversations = new ConversationsRepository(db)
    this.messages = new MessagesRepository(db)
    this.files = new FilesRepository(db)
    this.images = new ImageGenerationsRepository(db)
    this.providers = new ProviderSettingsRepository(db)
    this.usage = new UsageLogRepository(db)
    this.settings = new SettingsRepository(db)
    this.search = new SearchRepository(db)
  }

  get path(): string {
    return databasePath(this.dataDir)
  }

  /**
   * Runs `fn` and turns SQLite failures (disk full, read-only folder…) into messages that name the fix.
   * Repositories already report through StoreDb's mapper; this covers raw SQL run outside them.
   */
  guard<T>(fn: () => T): T {
    try {
      return fn()
    } catch (error) {
      throw toStoreError(error, this.dataDir)
    }
  }

  /** Registers a part to be told around every restore (within `RESTORE_WAIT_MS` in `before`); returns how to stop. */
  watchRestores(watcher: RestoreWatcher): () => void {
    this.restoreWatchers.add(watcher)
    return () => this.restoreWatchers.delete(watcher)
  }

  /**
   * Runs a restore with every watcher told before it and after it. `restore` calls `replaced`
   * once the data is the backup's; a failure before that leaves the watchers going on as they were.
   */
  async restoring<T>(restore: (replaced: () => void) => Promise<T>): Promise<T> {
    const watchers = [...this.restoreWatchers]
    for (let i = 0; i < watchers.length; i++) {
      try {
        await watchers[i]!.before()
      } catch (error) {
        // One that cannot stop refuses the restore: every one told so far goes on as it was.
        for (const told of watchers.slice(0, i + 1)) await told.after(false)
        throw error
      }
    }
    let replaced = false
    try {
      return await restore(() => (replaced = true))
    } finally {
      for (const watcher of watchers) await watcher.after(replaced)
    }
  }

  /** The export file; rows damaged on disk are left out and pushed onto `damaged`. */
  export(appVersion: string, damaged: DamagedRow[] = []): ExportFile {
    return this.guard(() => exportData(this.db, appVersion, Date.now(), damaged))
  }

  /** Ids of messages whose stored JSON no longer parses (the start-up check). */
  damagedMessages(): string[] {
    return this.guard(() => (this.db.sqlite.prepare(DAMAGED_MESSAGES_SQL).all() as Array<{ id: string }>).map((r) => r.id))
  }

  /** Parses, checks and adds an export file's text in one transaction. */
  import(text: string, options: ImportOptions = {}): ImportReport {
    const file = parseExportFile(text)
    try {
      return this.guard(() => importData(this.db, file, options))
    } finally {
      this.settings.invalidate()
    }
  }

  /** `ok`, or the problems SQLite found. */
  integrityCheck(): string[] {
    return (this.db.sqlite.pragma('integrity_check') as Array<{ integrity_check: string }>).map((r) => r.integrity_check)
  }

  close(): void {
    if (!this.db.sqlite.open) return
    this.messages.finishStreaming()
    // On quit: a copy of what changed since the last backup (only if there is data to keep).
    this.backups?.close()
    this.db.unwatchWrites()
    try {
      this.db.sqlite.pragma('optimize')
    } catch {
      // optimize is advice to the planner; closing matters more.
    }
    this.db.close()
    this.lock?.release()
    this.lock = undefined
  }
}
