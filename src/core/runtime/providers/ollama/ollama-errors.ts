import { AppErrorException, type AppError } from '../../../../shared/errors/app-error'

/** Catalogue names and statuses for Ollama (providers.md §8, error-code-specs.tsv). */
export const OllamaErrorType = {
  ServiceUnavailable: 'OllamaServiceUnavailable',
  Biz: 'OllamaBizError',
  InvalidArgs: 'InvalidOllamaArgs'
} as const

export const OLLAMA_UNAVAILABLE_MESSAGE = 'please check whether your ollama service is available'

// Every Invalid* type answers 401 (product.md §8), InvalidOllamaArgs included.
const STATUS = { OllamaServiceUnavailable: 472, OllamaBizError: 472, InvalidOllamaArgs: 401 } as const

/** Detail of an OllamaBizError: the server's own words, safe to show. */
export interface OllamaBizDetail {
  message: string
  name: string
  status_code?: number
  /** Ollama does not have this model: the UI offers to pull it. */
  missingModel?: string
}

const isAbort = (error: unknown) =>
  error instanceof Error && (error.name === 'AbortError' || (error as { code?: string }).code === 'ABORT_ERR')

/** undici says 'fetch failed' with the socket error as `cause`; a refused or reset connection means the service is gone. */
export function isServiceUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false
  if (error.message === 'fetch failed') return true
  const code = (error as { code?: string; cause?: { code?: string } }).cause?.code ?? (error as { code?: string }).code
  return code === 'ECONNREFUSED' || code === 'EHOSTUNREACH' || code === 'ENOTFOUND'
}

/** Maps whatever the SDK threw to the catalogue (providers.md §8). */
/**
 * The words of a failure. A server of another kind (an OpenAI-style one) answers
 * `{"error": {"message": …}}`: the ollama client makes that object its error's message, which
 * reads "[object Object]"; the object itself is kept on `error.error`.
 */
function errorMessageOf(error: unknown): string {
  const inner = (error as { error?: unknown } | null)?.error
  if (inner !== null && typeof inner === 'object') {
    const text = (inner as { message?: unknown }).message
    return typeof text === 'string' && text ? text : JSON.stringify(inner).slice(0, 500)
  }
  if (error instanceof Error) return error.message
  return typeof error === 'object' && error !== null ? JSON.stringify(error).slice(0, 500) : String(error)
}

export function toOllamaError(error: unknown, model?: string): AppError {
  if (error instanceof AppErrorException) return error.error
  if (isAbort(error)) return { errorType: 'ProviderBizError', message: 'Request was cancelled', status: 499, provider: 'ollama' }
  if (isServiceUnavailable(error)) {
    return { errorType: OllamaErrorType.ServiceUnavailable, message: OLLAMA_UNAVAILABLE_MESSAGE, status: STATUS.OllamaServiceUnavailable, provider: 'ollama' }
  }
  const message = errorMessageOf(error)
  const name = error instanceof Error ? error.name : 'Error'
  const statusCode = (error as { status_code?: number } | null)?.status_code
  const detail: OllamaBizDetail = { message, name, ...(statusCode !== undefined ? { status_code: statusCode } : {}) }
  if (model && (/not found, try pulling it first/i.test(message) || (statusCode === 404 && /not found/i.test(message)))) {
    detail.missingModel = model
  }
  return { errorType: OllamaErrorType.Biz, message, status: STATUS.OllamaBizError, provider: 'ollama', detail }
}

export const invalidOllamaArgs = (message: string): AppErrorException =>
  new AppErrorException({ errorType: OllamaErrorType.InvalidArgs, message, status: STATUS.InvalidOllamaArgs, provider: 'ollama' })
