import { spawn } from 'node:child_process'
import { existsSync, lstatSync, readdirSync, rmSync, statSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import type { DataFolderInfo, BackupSummary } from '../../shared/bridge/procedures/data'
import { AppErrorException } from '../../shared/errors/app-error'
import { fileSize, inspectBackup, listBackups, makeBackup, type BackupInfo } from '../store/backup'
import { openSqlite } from '../store/database'
import { migrate, readSchemaVersion } from '../store/migrate'
import type { Store } from '../store/store'

/** Files younger than this are never "unused": an upload writes its bytes before its row. */
export const CLEAN_GRACE_MS = 60 * 60 * 1000

/** The folders that hold files rows point at (`files.path`, `kb_files.path` are relative to the data folder). */
const FILE_FOLDERS = ['files', 'images', 'knowledge'] as const

interface Walked {
  path: string
  rel: string
  size: number
  mtimeMs: number
}

/** Every regular file under `dir` (symlinks are neither followed nor counted). */
function walk(root: string, dir: string, out: Walked[] = [], depth = 0): Walked[] {
  if (depth > 6) return out
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return out // missing folder: nothing stored there yet
  }
  for (const name of names) {
    const path = join(dir, name)
    try {
      const st = lstatSync(path)
      if (st.isDirectory()) walk(root, path, out, depth + 1)
      else if (st.isFile()) out.push({ path, rel: relative(root, path).split(sep).join('/'), size: st.size, mtimeMs: st.mtimeMs })
    } catch {
      // Removed meanwhile.
    }
  }
  return out
}

const sum = (files: Walked[]) => files.reduce((a, f) => a + f.size, 0)

export const backupSummary = (b: BackupInfo): BackupSummary => {
  const holds = inspectBackup(b.file)
  const size = existsSync(b.file) ? fileSize(b.file) : undefined
  return { at: b.at, schemaVersion: b.schemaVersion, reason: b.reason, ...(size !== undefined ? { size } : {}), ...(holds ? { holds } : {}) }
}

/**
 * The data folder as the Data page shows it: where it is, how much each kind of data uses,
 * which stored files nothing refers to any more (and removing them), backups made on request
 * and restoring one in place. Plain Node: the desktop shell and browser mode share it.
 */
export class DataFolderService {
  constructor(
    private readonly deps: { store: Store; dataDir: string; mode: 'desktop' | 'browser' | 'test'; now?: () => number; opener?: (path: string) => Promise<void> }
  ) {}

  private now() {
    return this.deps.now?.() ?? Date.now()
  }

  /** Paths (relative, `/`-separated) that a row still refers to. */
  private referenced(): { paths: Set<string>; sha256: Set<string>; messageIds: (id: string) => boolean } {
    const sqlite = this.deps.store.db.sqlite
    const paths = new Set<string>()
    const sha256 = new Set<string>()
    for (const row of sqlite.prepare('SELECT path, sha256 FROM files').iterate() as Iterable<{ path: string; sha256: string }>) {
      paths.add(row.path)
      sha256.add(row.sha256)
    }
    try {
      for (const row of sqlite.prepare('SELECT path FROM kb_files WHERE path IS NOT NULL').iterate() as Iterable<{ path: string }>) paths.add(row.path)
    } catch {
      // A schema without knowledge bases.
    }
    const exists = sqlite.prepare('SELECT 1 FROM messages WHERE id = ?').pluck()
    return { paths, sha256, messageIds: (id) => exists.get(id) !== undefined }
  }

  /** Stored files no row refers to; the extracted text next to an upload counts as the upload's. */
  private unused(): Walked[] {
    const ref = this.referenced()
    const cutoff = this.now() - CLEAN_GRACE_MS
    const out: Walked[] = []
    for (const folder of FILE_FOLDERS) {
      for (const f of walk(this.deps.dataDir, join(this.deps.dataDir, folder))) {
        if (f.mtimeMs > cutoff || ref.paths.has(f.rel)) continue
        const sidecar = /^files\/([0-9a-f]{64})\.txt$/.exec(f.rel)
        if (sidecar && ref.sha256.has(sidecar[1]!)) continue
        out.push(f)
      }
    }
    // Speech cache: `<messageId>-<hash>.mp3`, unused once its message is gone.
    for (const f of walk(this.deps.dataDir, join(this.deps.dataDir, 'speech'))) {
      const id = /^speech\/(.+)-[0-9a-f]{24}\.mp3$/.exec(f.rel)?.[1]
      if (f.mtimeMs > cutoff || (id && ref.messageIds(id))) continue
      out.push(f)
    }
    return out
  }

  info(): DataFolderInfo {
    const { dataDir, store } = this.deps
    const database = ['', '-wal', '-shm'].reduce((a, s) => a + fileSize(store.path + s), 0)
    const files = sum(walk(dataDir, join(dataDir, 'files'))) + sum(walk(dataDir, join(dataDir, 'knowledge')))
    const unused = this.unused()
    return {
      path: dataDir,
      canOpen: this.deps.mode === 'desktop',
      usage: {
        conversations: database,
        files,
        images: sum(walk(dataDir, join(dataDir, 'images'))),
        speech: sum(walk(dataDir, join(dataDir, 'speech'))),
        backups: sum(walk(dataDir, join(dataDir, 'backups')))
      },
      unused: { count: unused.length, bytes: sum(unused) }
    }
  }

  /** Removes the stored files nothing refers to (never the database, backups or logs). */
  clean(): { removed: number; bytes: number } {
    let removed = 0
    let bytes = 0
    for (const f of this.unused()) {
      try {
        rmSync(f.path, { force: true })
        removed++
        bytes += f.size
      } catch {
        // In use or already gone; the next clean-up tries again.
      }
    }
    return { removed, bytes }
  }

  backupNow(): BackupSummary {
    const { store, dataDir } = this.deps
    return backupSummary(store.guard(() => makeBackup(store.db.sqlite, dataDir, 'manual', readSchemaVersion(store.db.sqlite), this.now())))
  }

  /**
   * Puts a backup's contents in place of the open database, in place (the same connection keeps
   * serving every service): first a copy of the current data ('restore' backup, so the step can
   * be undone), then SQLite's online backup from the chosen file into the live one, then the
   * migrations an older backup needs and the start-up repairs.
   */
  async restore(at: number): Promise<{ restored: BackupSummary; safetyCopy: BackupSummary }> {
    const { store, dataDir } = this.deps
    const chosen = listBackups(dataDir).find((b) => b.at === at)
    if (!chosen) throw new AppErrorException({ errorType: 'NotFound', status: 404, message: 'That backup no longer exists; refresh the list.' })
    const version = readSchemaVersion(store.db.sqlite)
    if (!inspectBackup(chosen.file, true))
      throw new AppErrorException({ errorType: 'StorageError', status: 422, message: 'That backup cannot be read (it failed SQLite’s check); nothing was changed. Choose another one.' })
    if (chosen.schemaVersion > version)
      throw new AppErrorException({ errorType: 'DatabaseNewerThanApp', status: 409, message: 'That backup was made by a newer Switchboard; nothing was changed.' })
    const restored = backupSummary(chosen)
    // Sync (the part that keeps state about the file) stops for the restore and is told after it.
    return store.restoring(async (replaced) => {
      // The copy is made after the check, so a refused restore leaves no extra backup behind.
      const safety = store.guard(() => makeBackup(store.db.sqlite, dataDir, 'restore', version, this.now()))
      const source = openSqlite(chosen.file, { readonly: true, fileMustExist: true })
      try {
        await source.backup(store.path)
      } finally {
        source.close()
      }
      replaced()
      const sqlite = store.db.sqlite
      sqlite.pragma('journal_mode = WAL')
      store.guard(() => migrate(sqlite, dataDir))
      store.messages.repairStreaming()
      return { restored, safetyCopy: backupSummary(safety) }
    })
  }

  /** Desktop: shows the folder in the system's file manager. Browser mode shows the path to copy instead. */
  async open(): Promise<void> {
    if (this.deps.mode !== 'desktop')
      throw new AppErrorException({ errorType: 'ValidationError', status: 400, message: 'In browser mode the data folder is on the server; copy its path instead.' })
    const dir = this.deps.dataDir
    if (!statSync(dir).isDirectory()) throw new AppErrorException({ errorType: 'StorageError', status: 500, message: 'The data folder is missing.' })
    await (this.deps.opener ?? openWithSystem)(dir)
  }
}

/** The platform's own "open this folder" command, given the path as one argument (never a shell string). */
function openWithSystem(path: string): Promise<void> {
  const [command, args] = process.platform === 'darwin' ? ['open', [path]] : process.platform === 'win32' ? ['explorer.exe', [path]] : ['xdg-open', [path]]
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: 'ignore', detached: true })
    child.once('error', (error) => reject(new AppErrorException({ errorType: 'StorageError', status: 500, message: `The data folder could not be opened (${error.message}).` })))
    child.once('spawn', () => {
      child.unref()
      resolve()
    })
  })
}
