import { AppErrorException, BridgeErrorType, isAppError, type AppError } from '../../shared/errors/app-error'

/** Whatever a service threw, as plain data that can cross the bridge. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppErrorException) return error.error
  if (isAppError(error)) return { errorType: error.errorType, message: error.message, status: error.status, provider: error.provider, detail: error.detail }
  if (error instanceof Error && error.name === 'AbortError') {
    return { errorType: 'ProviderBizError', message: 'Request was cancelled', status: 499 }
  }
  const message = error instanceof Error ? error.message : String(error)
  return { errorType: BridgeErrorType.Internal, message: message || 'Unexpected error in the Switchboard core.', status: 500 }
}
