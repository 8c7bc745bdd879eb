import { randomBytes } from 'node:crypto'
import { appendFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ensurePrivateDir, PRIVATE_FILE_MODE } from '../files/private-files'
import { storeError } from './errors'

/** Larger than any export we write; a cap so a client cannot fill the disk through this door. */
export const MAX_UPLOAD_BYTES = 2 * 1024 * 1024 * 1024
/** All transfers together (uploads waiting for their import, exports waiting to be downloaded). */
export const MAX_TRANSFERS_BYTES = 4 * 1024 * 1024 * 1024
/** The largest piece one `files.transferAppend` carries (one IPC message). */
export const TRANSFER_CHUNK_BYTES = 8 * 1024 * 1024

export interface TransferLimits {
  maxUploadBytes: number
  maxTotalBytes: number
}
export const TRANSFER_LIMITS: TransferLimits = { maxUploadBytes: MAX_UPLOAD_BYTES, maxTotalBytes: MAX_TRANSFERS_BYTES }

/** Uploads (import files, knowledge files) and browser-mode downloads live here briefly (owner-only). */
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

export const TOO_LARGE = 'The file is too large to import.'
export const TRANSFERS_FULL = 'Too many uploads are waiting to be imported; finish or cancel those imports, or wait a moment, and try again.'

/**
 * The desktop's side of the one upload path: an empty transfer file that `appendTransfer` fills
 * piece by piece over the bridge (browser mode fills it with one streamed HTTP POST instead).
 * Either way a procedure then names the file by its id and reads it from disk.
 */
export function createTransfer(dataDir: string): string {
  try {
    const { id, path } = newTransfer(dataDir)
    writeFileSync(path, new Uint8Array(0), { mode: PRIVATE_FILE_MODE, flag: 'wx' })
    return id
  } catch (error) {
    throw transferWriteError(error)
  }
}

/** A failed write of a transfer as the user can act on it (a full disk, a folder that cannot be written). */
function transferWriteError(error: unknown) {
  const code = (error as NodeJS.ErrnoException).code
  if (code === 'ENOSPC') return storeError('DiskFull', 'The disk is full; free some space and try again.', 507)
  if (code === 'EROFS' || code === 'EACCES' || code === 'EPERM') return storeError('DataFolderReadOnly', 'Switchboard cannot write to its data folder, so the file could not be received.', 500)
  return storeError('StorageError', `The file could not be received: ${(error as Error).message}`, 500)
}

/** Appends a piece to a transfer made by createTransfer, within the same limits as an HTTP upload; the total so far. */
export function appendTransfer(dataDir: string, id: string, chunk: Uint8Array, limits: TransferLimits = TRANSFER_LIMITS): number {
  const path = transferPath(dataDir, id)
  let size: number
  try {
    size = statSync(path!).size
  } catch {
    throw storeError('ValidationError', 'The upload is no longer there; choose the file again.', 400)
  }
  const fail = (message: string, status: number) => {
    rmSync(path!, { force: true })
    throw storeError('ValidationError', message, status)
  }
  if (size + chunk.byteLength > limits.maxUploadBytes) fail(TOO_LARGE, 413)
  if (transfersSize(dataDir) + chunk.byteLength > limits.maxTotalBytes) fail(TRANSFERS_FULL, 507)
  try {
    appendFileSync(path!, chunk)
  } catch (error) {
    rmSync(path!, { force: true })
    throw transferWriteError(error)
  }
  return size + chunk.byteLength
}
