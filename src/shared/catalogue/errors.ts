import { AppErrorException, type AppError } from '../errors/app-error'

/** Error types raised by catalogue code; plain data so they cross the bridge unchanged. */
export const CatalogueErrorType = {
  UnknownProvider: 'UnknownProvider',
  ModelNotFound: 'ModelNotFound',
  InvalidCatalogueData: 'InvalidCatalogueData'
} as const

export function unknownProviderError(providerId: string, known: readonly string[]): AppError {
  return {
    errorType: CatalogueErrorType.UnknownProvider,
    message: `Unknown provider id '${providerId}'. Known ids: ${known.join(', ')}`,
    status: 404,
    provider: providerId
  }
}

export function modelNotFoundError(modelId: string, providerId?: string): AppError {
  return {
    errorType: CatalogueErrorType.ModelNotFound,
    message: providerId
      ? `Model '${modelId}' is not in the built-in catalogue of '${providerId}' or of any other provider`
      : `Model '${modelId}' is not in the built-in catalogue`,
    status: 404,
    ...(providerId ? { provider: providerId } : {})
  }
}

export const throwApp = (error: AppError): never => {
  throw new AppErrorException(error)
}
