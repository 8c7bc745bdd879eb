import { AppErrorException, type AppError } from '../../shared/errors/app-error'
import { resolveErrorStatus, type ErrorTypeName } from '../../shared/errors/catalogue'

/**
 * Builds the plain error data every runtime returns, with the catalogue status filled in
 * (`status`, when given, is kept only for a type the mapping does not know: product.md §8).
 */
export function runtimeError(errorType: ErrorTypeName, message: string, provider?: string, detail?: unknown, status?: number): AppError {
  const error: AppError = { errorType, message, status: resolveErrorStatus(errorType, status) }
  if (provider) error.provider = provider
  if (detail !== undefined) error.detail = detail
  return error
}

/** Throws a catalogue error (non-stream calls: models, embeddings, speech …). */
export function throwRuntimeError(errorType: ErrorTypeName, message: string, provider?: string, detail?: unknown): never {
  throw new AppErrorException(runtimeError(errorType, message, provider, detail))
}

export { CANCELLED_MESSAGE } from '../../shared/errors/to-app-error'
