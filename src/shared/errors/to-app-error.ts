import { AppErrorException, BridgeErrorType, isAppError, type AppError } from './app-error'
import { ERROR_CATALOGUE, resolveErrorStatus, type ErrorTypeName } from './catalogue'
import { redactText } from './redact'

/** The message every cancellation carries (the runtime's, the bridge's, the CLI's). */
export const CANCELLED_MESSAGE = 'Request was cancelled'

function isAbort(error: unknown): boolean {
  const name = (error as { name?: unknown } | null)?.name
  return name === 'AbortError' || name === 'APIUserAbortError'
}

/** SQLite's codes for code that reaches a database directly (the store words them itself); not a damaged file: it may be an import. */
const SQLITE_CODES: Array<[RegExp, ErrorTypeName]> = [
  [/^SQLITE_FULL$/, 'DiskFull'],
  [/^SQLITE_READONLY/, 'DataFolderReadOnly'],
  [/^SQLITE_(BUSY|LOCKED)/, 'DatabaseBusy'],
  [/^SQLITE_(IOERR|CANTOPEN|PROTOCOL)/, 'StorageError']
]

/**
 * The one error normaliser: whatever was thrown, as catalogue error data that can cross the
 * bridge, be stored or be printed. One set of defaults everywhere: a catalogue error is kept;
 * an abort is the runtime's cancellation (ProviderBizError "Request was cancelled"); a
 * file-system or SQLite failure says what is true in words; anything else is an InternalError (a
 * bug or a local fault — not blamed on a provider) with its message redacted.
 */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppErrorException) return error.error
  if (isAppError(error)) return { errorType: error.errorType, message: error.message, status: error.status, provider: error.provider, detail: error.detail }
  if (isAbort(error)) return { errorType: 'ProviderBizError', message: CANCELLED_MESSAGE, status: resolveErrorStatus('ProviderBizError') ?? 471 }
  const code = (error as { code?: unknown } | null)?.code
  // File-system failures outside the store (a settings file, a cache): say what is true, in words.
  if (code === 'ENOSPC') return { errorType: 'DiskFull', status: 507, message: 'The disk is full, so the change was not saved. Free some space and try again.' }
  if (code === 'EROFS' || code === 'EACCES' || code === 'EPERM')
    return { errorType: 'DataFolderReadOnly', status: 500, message: `Switchboard cannot write its files (${code}: ${code === 'EROFS' ? 'the disk is read-only' : 'permission denied'}). Make the data folder writable and try again.` }
  const sqlite = typeof code === 'string' ? SQLITE_CODES.find(([pattern]) => pattern.test(code))?.[1] : undefined
  if (sqlite) {
    const { status, text } = ERROR_CATALOGUE[sqlite]
    return { errorType: sqlite, status, message: `${text.en.title} ${text.en.fix}`, detail: { code } }
  }
  const message = redactText(error instanceof Error ? error.message : String(error ?? ''))
  return { errorType: BridgeErrorType.Internal, message: message || 'Unexpected error in the Switchboard core.', status: 500 }
}
