import { randomBytes } from 'node:crypto'
import { readdirSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { ensurePrivateDir } from '../files/private-files'

/** Browser-mode uploads and downloads of import/export files live here briefly (owner-only). */
export const transfersDir = (dataDir: string) => join(dataDir, 'transfers')
const ID = /^[A-Za-z0-9_-]{8,64}$/
const KEEP_MS = 60 * 60 * 1000

export function transferPath(dataDir: string, id: string): string | undefined {
  return ID.test(id) ? join(transfersDir(dataDir), `${id}.json`) : undefined
}

/** A fresh transfer file name (not created). Old transfers are removed on the way. */
export function newTransfer(dataDir: string, now = Date.now()): { id: string; path: string } {
  const dir = transfersDir(dataDir)
  ensurePrivateDir(dir)
  for (const name of readdirSync(dir)) {
    try {
      if (now - statSync(join(dir, name)).mtimeMs > KEEP_MS) rmSync(join(dir, name), { force: true })
    } catch {
      // Gone already.
    }
  }
  const id = randomBytes(18).toString('base64url')
  return { id, path: join(dir, `${id}.json`) }
}
