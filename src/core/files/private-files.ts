import { chmodSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

/** Owner only: the data folder and everything in it hold conversations, uploads and settings. */
export const PRIVATE_DIR_MODE = 0o700
export const PRIVATE_FILE_MODE = 0o600

const posix = process.platform !== 'win32'

/** Creates a folder (and parents) readable by the owner only, and tightens it if it already existed. */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE })
  if (posix) chmodSync(dir, PRIVATE_DIR_MODE)
}

/**
 * Start-up: makes the data folder 0700 and every file under it 0600 (folders 0700), so data
 * written by an older version or with a loose umask is private too. Best effort per entry:
 * a file we cannot change is not worth refusing to start over.
 */
export function tightenDataFolder(dataDir: string): void {
  if (!posix || !existsSync(dataDir)) return
  const walk = (dir: string, depth: number) => {
    try {
      chmodSync(dir, PRIVATE_DIR_MODE)
    } catch {
      // Best effort: a folder we cannot chmod (gone, not ours) is left as it is.
      return
    }
    if (depth > 4) return
    let names: string[]
    try {
      names = readdirSync(dir)
    } catch {
      // Best effort, as above: an unreadable folder is skipped.
      return
    }
    for (const name of names) {
      const path = join(dir, name)
      try {
        const stat = statSync(path)
        if (stat.isDirectory()) walk(path, depth + 1)
        else if (stat.isFile() && (stat.mode & 0o077) !== 0) chmodSync(path, PRIVATE_FILE_MODE)
      } catch {
        // Gone or not ours: leave it.
      }
    }
  }
  walk(dataDir, 0)
}
