import { randomBytes } from 'node:crypto'
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const FILE = 'browser-token'

/**
 * The loopback token, kept per data folder so a restart keeps open tabs and printed
 * addresses working. Stored readable by the owner only (0600): anyone who can read it can
 * use the app. `rotate` makes a new one, which ends every address handed out before.
 */
export function loadOrCreateToken(dataDir: string, options: { rotate?: boolean } = {}): string {
  const path = join(dataDir, FILE)
  if (!options.rotate) {
    try {
      const stored = readFileSync(path, 'utf8').trim()
      if (/^[A-Za-z0-9_-]{32,}$/.test(stored)) {
        chmodSync(path, 0o600)
        return stored
      }
    } catch {
      // Missing or unreadable: make a new one below.
    }
  }
  mkdirSync(dataDir, { recursive: true })
  const token = randomBytes(32).toString('base64url')
  // Written aside and renamed, so a crash never leaves a half-written token.
  const temporary = `${path}.${process.pid}.tmp`
  writeFileSync(temporary, token, { mode: 0o600 })
  renameSync(temporary, path)
  return token
}
