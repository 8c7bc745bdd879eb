import { AppErrorException, BridgeErrorType, isAppError, type AppError } from '../../shared/errors/app-error'

/** Whatever a service threw, as plain data that can cross the bridge. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppErrorException) return error.error
  if (isAppError(error)) return { errorType: error.errorType, message: error.message, status: error.status, provider: error.provider, detail: error.detail }
  if (error instanceof Error && error.name === 'AbortError') {
    return { errorType: 'ProviderBizError', message: 'Request was cancelled', status: 499 }
  }
  const code = (error as { code?: unknown } | null)?.code
  // File-system failures outside the store (a settings file, a cache): say what is true, in words.
  if (code === 'ENOSPC') return { errorType: 'DiskFull', status: 507, message: 'The disk is full, so the change was not saved. Free some space and try again.' }
  if (code === 'EROFS' || code === 'EACCES' || code === 'EPERM')
    return { errorType: 'DataFolderReadOnly', status: 500, message: `Switchboard cannot write its files (${code}: ${code === 'EROFS' ? 'the disk is read-only' : 'permission denied'}). Make the data folder writable and try again.` }
  const message = error instanceof Error ? error.message : String(error)
  return { errorType: BridgeErrorType.Internal, message: message || 'Unexpected error in the Switchboard core.', status: 500 }
}
