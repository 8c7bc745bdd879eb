import { statfsSync } from 'node:fs'
import { AppErrorException, type AppError } from '../../shared/errors/app-error'
import type { ErrorTypeName } from '../../shared/errors/catalogue'

/** Error types the store raises; each message names what happened and the fix. */
export const StoreErrorType = {
  NewerDatabase: 'DatabaseNewerThanApp',
  Corrupt: 'DatabaseCorrupt',
  DiskFull: 'DiskFull',
  ReadOnly: 'DataFolderReadOnly',
  Busy: 'DatabaseBusy',
  NotFound: 'NotFound',
  ImportFailed: 'ImportFailed',
  FileIncompatible: 'FileIncompatible',
  Storage: 'StorageError'
} as const

export const storeError = (errorType: ErrorTypeName, message: string, status = 500, detail?: AppError['detail']) =>
  new AppErrorException({ errorType, message, status, ...(detail === undefined ? {} : { detail }) })

export const isCorruption = (error: unknown) => {
  const code = (error as { code?: unknown })?.code
  return code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB' || (error instanceof AppErrorException && error.error.errorType === StoreErrorType.Corrupt)
}

export const notFound = (what: string, id: string) => storeError(StoreErrorType.NotFound, `${what} ${JSON.stringify(id)} does not exist.`, 404)

interface CodedError {
  code?: unknown
  message?: unknown
}

/** True when the file system holding `dir` has (almost) no room left: SQLite's I/O codes do not say why a write failed. */
export function diskIsFull(dir: string): boolean {
  try {
    const stats = statfsSync(dir)
    return stats.bavail * stats.bsize < 64 * 1024
  } catch {
    return false
  }
}

/**
 * Turns a SQLite or file-system failure into a message that names the fix. Anything already
 * an AppErrorException passes through. The original text is kept only as the code, so a
 * value bound into a failing statement can never leak into the message. `during` words the
 * message for start-up ('open': nothing was being changed) or for a change ('write').
 */
export function toStoreError(error: unknown, dataDir: string, during: 'open' | 'write' = 'write'): unknown {
  if (error instanceof AppErrorException) return error
  const code = typeof (error as CodedError)?.code === 'string' ? ((error as CodedError).code as string) : ''
  const ioError = code.startsWith('SQLITE_IOERR') || code.startsWith('SQLITE_CANTOPEN') || code === 'SQLITE_PROTOCOL' || /^E[A-Z]+$/.test(code)
  if (code === 'SQLITE_FULL' || code === 'ENOSPC' || (ioError && diskIsFull(dataDir)))
    return storeError(
      StoreErrorType.DiskFull,
      during === 'open'
        ? `The disk holding ${dataDir} is full, so Switchboard cannot open its data. Free some space, then choose Retry; nothing already saved was lost.`
        : `The disk holding ${dataDir} is full, so the change was not saved. Free some space and try again; nothing already saved was lost.`,
      507,
      { code }
    )
  if (code.startsWith('SQLITE_READONLY') || code === 'EROFS' || code === 'EACCES' || code === 'EPERM')
    return storeError(StoreErrorType.ReadOnly, `Switchboard cannot write to its data folder ${dataDir}. Make the folder writable (check its permissions and that the disk is not mounted read-only) or start Switchboard with another data folder.`, 500, { code })
  if (code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB')
    return storeError(StoreErrorType.Corrupt, `The database in ${dataDir} is damaged. Restart Switchboard: it will move the damaged file aside and restore the newest backup.`, 500, { code })
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED')
    return storeError(StoreErrorType.Busy, `The database in ${dataDir} is in use by another program (perhaps a second Switchboard). Close it and try again.`, 503, { code })
  if (ioError)
    return storeError(StoreErrorType.Storage, `Switchboard could not read or write its data folder ${dataDir} (${code}). Check the disk and the folder's permissions, then try again.`, 500, { code })
  // Other SQLite errors (constraints, misuse) are bugs or bad input: the caller decides what they mean.
  return error
}
