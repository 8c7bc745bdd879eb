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

/** Every transfer is of one server run: at start-up none is wanted (an upload cut by a crash included). */
export function sweepTransfers(dataDir: string): void {
  let names: string[]
  try {
    names = readdirSync(transfersDir(dataDir))
  } catch {
    return
  }
  for (const name of names) rmSync(join(transfersDir(dataDir), name), { force: true })
}

/** Bytes held by transfers now (uploads being written included). */
export function transfersSize(dataDir: string): number {
  let total = 0
  let names: string[]
  try {
    names = readdirSync(transfersDir(dataDir))
  } catch {
    return 0
  }
  for (const name of names) {
    try {
      total += statSync(join(transfersDir(dataDir), name)).size
    } catch {
      // Removed meanwhile.
    }
  }
  return total
}

/** An upload's file once the import that read it has ended (a preview keeps it for the real run). */
export function removeTransfer(dataDir: string, id: string | undefined): void {
  const path = id ? transferPath(dataDir, id) : undefined
  if (path) rmSync(path, { force: true })
}
