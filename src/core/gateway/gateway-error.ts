import type { AppError } from '../../shared/errors/app-error'
import { catalogueEntry, resolveErrorStatus } from '../../shared/errors/catalogue'

/** The kinds both APIs distinguish; each API names them its own way (see `openAIError`, `anthropicError`). */
export type GatewayErrorKind = 'invalid_request' | 'authentication' | 'permission' | 'not_found' | 'too_large' | 'rate_limit' | 'quota' | 'api' | 'overloaded'

const STATUS: Record<GatewayErrorKind, number> = {
  invalid_request: 400,
  authentication: 401,
  permission: 403,
  not_found: 404,
  too_large: 413,
  rate_limit: 429,
  quota: 429,
  api: 500,
  overloaded: 503
}

/** An error the gateway answers with; thrown inside it, written in the caller's API shape. */
export class GatewayError extends Error {
  readonly status: number

  constructor(
    readonly kind: GatewayErrorKind,
    message: string,
    readonly param?: string,
    status?: number,
    /** Seconds the client should wait (429). */
    readonly retryAfter?: number
  ) {
    super(message)
    this.status = status ?? STATUS[kind]
  }

  static invalid(message: string, param?: string): GatewayError {
    return new GatewayError('invalid_request', message, param)
  }

  /** A provider or app error from the runtime, with the status it carries. */
  static fromAppError(error: AppError): GatewayError {
    const status = resolveErrorStatus(error.errorType, error.status) ?? 500
    // The app's private statuses (470–493) are not HTTP: a failing upstream is a bad gateway.
    let http = status >= 470 && status < 500 ? 502 : status >= 100 && status < 600 ? status : 502
    // The client's key was checked here before any work. A 401 from the app is never about it: it
    // is an "Invalid…" type (product.md §8 makes every one 401) or the owner's provider refusing
    // the owner's credentials. As `invalid_api_key` a client would ask its user for a new key.
    if (http === 401) {
      const own = catalogueEntry(error.errorType)?.status
      http = own !== undefined && own !== 401 && own >= 400 && own < 500 ? own : 502
    }
    const kind: GatewayErrorKind =
      http === 400 || http === 422
        ? 'invalid_request'
        : http === 401
          ? 'authentication'
          : http === 403
            ? 'permission'
            : http === 404
              ? 'not_found'
              : http === 429
                ? error.errorType === 'InsufficientQuota'
                  ? 'quota'
                  : 'rate_limit'
                : http === 503
                  ? 'overloaded'
                  : 'api'
    const provider = error.provider ? ` (${error.provider})` : ''
    // A refusal that names the request field it is about (logit_bias on a provider without it) says so as OpenAI's `param`.
    const param = (error.detail as { param?: unknown } | undefined)?.param
    return new GatewayError(kind, `${error.errorType}${provider}: ${error.message}`, typeof param === 'string' ? param : undefined, http)
  }
}

const OPENAI_TYPE: Record<GatewayErrorKind, string> = {
  invalid_request: 'invalid_request_error',
  authentication: 'authentication_error',
  permission: 'permission_error',
  not_found: 'not_found_error',
  too_large: 'invalid_request_error',
  rate_limit: 'rate_limit_exceeded',
  quota: 'insufficient_quota',
  api: 'api_error',
  overloaded: 'server_error'
}

const OPENAI_CODE: Partial<Record<GatewayErrorKind, string>> = {
  authentication: 'invalid_api_key',
  not_found: 'model_not_found',
  rate_limit: 'rate_limit_exceeded',
  quota: 'insufficient_quota',
  too_large: 'request_too_large'
}

/** OpenAI's error body: `{ error: { message, type, param, code } }`. */
export function openAIError(error: GatewayError): { error: { message: string; type: string; param: string | null; code: string | null } } {
  return { error: { message: error.message, type: OPENAI_TYPE[error.kind], param: error.param ?? null, code: OPENAI_CODE[error.kind] ?? null } }
}

const ANTHROPIC_TYPE: Record<GatewayErrorKind, string> = {
  invalid_request: 'invalid_request_error',
  authentication: 'authentication_error',
  permission: 'permission_error',
  not_found: 'not_found_error',
  too_large: 'request_too_large',
  rate_limit: 'rate_limit_error',
  quota: 'rate_limit_error',
  api: 'api_error',
  overloaded: 'overloaded_error'
}

/** Anthropic's error body: `{ type: 'error', error: { type, message } }`. */
export function anthropicError(error: GatewayError): { type: 'error'; error: { type: string; message: string } } {
  return { type: 'error', error: { type: ANTHROPIC_TYPE[error.kind], message: error.message } }
}
