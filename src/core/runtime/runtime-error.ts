import { AppErrorException, type AppError } from '../../shared/errors/app-error'
import { statusForErrorType } from '../../shared/errors/catalogue'

/** Builds the plain error data every runtime returns, with the catalogue status filled in. */
export function runtimeError(errorType: string, message: string, provider?: string, detail?: unknown): AppError {
  const error: AppError = { errorType, message, status: statusForErrorType(errorType) }
  if (provider) error.provider = provider
  if (detail !== undefined) error.detail = detail
  return error
}

/** Throws a catalogue error (non-stream calls: models, embeddings, speech …). */
export function throwRuntimeError(errorType: string, message: string, provider?: string, detail?: unknown): never {
  throw new AppErrorException(runtimeError(errorType, message, provider, detail))
}

export const CANCELLED_MESSAGE = 'Request was cancelled'
