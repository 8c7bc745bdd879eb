import { AppErrorException, type AppError } from '../../../shared/errors/app-error'
import { matchErrorPattern, refineErrorCode } from '../../../shared/errors/classify'
import { maskEndpoint, redactText, redactValue } from '../../../shared/errors/redact'
import { CANCELLED_MESSAGE, runtimeError } from '../runtime-error'
import type { ErrorTypeName } from '../../../shared/errors/catalogue'

export interface ErrorContext {
  provider: string
  /** Values that must never appear in the result (the API key, tokens). */
  secrets?: readonly (string | undefined)[]
  /** Shown masked in `detail.endpoint`. */
  baseURL?: string
  /** Set when the caller's AbortSignal fired: every failure is then a cancellation. */
  aborted?: boolean
  /** Azure: the deployment the request went to (added to DeploymentNotFound errors). */
  deploymentId?: string
  /** The provider's own rules, from its spec; each runtime passes its own (no lookup here, so no provider imports the registry). */
  rules?: ProviderErrorRules
}

/** A provider's own error rule, tried before the generic mapping; undefined falls through. */
export type ProviderErrorRule = (facts: ErrorFacts) => { errorType: ErrorTypeName; message?: string } | undefined

/** What a provider's spec adds to the generic mapping. */
export interface ProviderErrorRules {
  mapError?: ProviderErrorRule | undefined
  /** What an unmatched HTTP failure becomes instead of the status buckets (Google: ProviderBizError). */
  errorFallback?: ErrorTypeName | undefined
}

/** What we read off any thrown value: the OpenAI SDK's APIError, a fetch TypeError, plain objects. */
export interface ErrorFacts {
  status?: number
  code?: string
  type?: string
  message: string
  body?: unknown
  name?: string
}

export function readErrorFacts(error: unknown): ErrorFacts {
  if (error === null || error === undefined) return { message: 'Unknown error' }
  if (typeof error !== 'object') return { message: String(error) }
  const e = error as Record<string, unknown>
  // The OpenAI SDK puts the parsed body's `error` field in `error`; some proxies nest it once more.
  let body = e['error'] as Record<string, unknown> | undefined
  if (body && typeof body === 'object' && body['error'] && typeof body['error'] === 'object') body = body['error'] as Record<string, unknown>
  const bodyMessage = body && typeof body === 'object' ? (body['message'] as string | undefined) : undefined
  const status = typeof e['status'] === 'number' ? (e['status'] as number) : undefined
  const rawMessage = typeof e['message'] === 'string' ? (e['message'] as string) : ''
  const cause = e['cause'] as { message?: string; code?: string } | undefined
  const code = (body?.['code'] as string | undefined) ?? (e['code'] as string | undefined) ?? cause?.code
  return {
    status,
    code: code === undefined || code === null ? undefined : String(code),
    type: (body?.['type'] as string | undefined) ?? undefined,
    message: bodyMessage || rawMessage || cause?.message || 'Unknown error',
    body,
    name: typeof e['name'] === 'string' ? (e['name'] as string) : undefined
  }
}

/** An abort, whatever shape it arrives in (AbortError, the SDK's APIUserAbortError, "cancelled"). */
export function isAbortError(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false
  const e = error as { name?: string; message?: string }
  if (e.name === 'AbortError' || e.name === 'APIUserAbortError') return true
  const message = (e.message ?? '').toLowerCase()
  return message.includes('request was aborted') || message === 'cancelled' || message === 'canceled' || message.includes('operation was aborted') || message.includes('this operation was aborted')
}

/** Transport failures (refused, reset, closed mid-body) as opposed to provider answers. */
export function isConnectionError(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false
  const e = error as { name?: string; message?: string; cause?: { code?: string; message?: string } }
  if (e.name === 'APIConnectionError' || e.name === 'APIConnectionTimeoutError') return true
  const text = `${e.message ?? ''} ${e.cause?.code ?? ''} ${e.cause?.message ?? ''}`
  return /ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|ENOTFOUND|UND_ERR|terminated|fetch failed|socket hang up|other side closed|Connection error/i.test(text)
}

const CODE_TYPES: Record<string, ErrorTypeName> = {
  insufficient_quota: 'InsufficientQuota',
  model_not_found: 'ModelNotFound',
  context_length_exceeded: 'ExceededContextWindow',
  string_above_max_length: 'ExceededContextWindow',
  content_filter: 'ProviderContentPolicyViolation',
  invalid_api_key: 'InvalidProviderAPIKey'
}

/**
 * Any thrown value → a catalogue error (providers.md §8), message redacted, endpoint masked.
 * Order: cancellation; provider rules by status; error codes; message patterns; status buckets.
 */
export function mapProviderError(error: unknown, ctx: ErrorContext): AppError {
  const secrets = ctx.secrets ?? []
  if (ctx.aborted || isAbortError(error)) return runtimeError('ProviderBizError', CANCELLED_MESSAGE, ctx.provider)
  if (error instanceof AppErrorException) {
    return { ...error.error, message: redactText(error.error.message, secrets), provider: error.error.provider ?? ctx.provider }
  }
  const facts = readErrorFacts(error)
  const message = redactText(facts.message, secrets)
  const detail: Record<string, unknown> = {}
  if (facts.status !== undefined) detail['status'] = facts.status
  if (facts.code) detail['code'] = facts.code
  if (facts.body !== undefined) detail['body'] = redactValue(facts.body, secrets)
  if (ctx.baseURL) detail['endpoint'] = maskEndpoint(ctx.baseURL)
  const make = (type: ErrorTypeName, text = message) => runtimeError(type, text, ctx.provider, Object.keys(detail).length ? detail : undefined)

  const status = facts.status
  // The provider's own rules (its spec's, passed by its runtime) come before the generic ones.
  const spec = ctx.rules
  const own = spec?.mapError?.(facts)
  if (own) return make(own.errorType, own.message ?? message)
  if (status === 401) return make('InvalidProviderAPIKey')
  if (facts.code === 'DeploymentNotFound') {
    // Azure: name the deployment the user configured, so the fix is obvious.
    return make('ModelNotFound', ctx.deploymentId ? `${message} (deployment: ${ctx.deploymentId})` : message)
  }

  const byCode = (facts.code && CODE_TYPES[facts.code]) || (facts.type && CODE_TYPES[facts.type])
  if (byCode) return make(byCode)

  if (status === undefined && isConnectionError(error)) {
    return make(matchErrorPattern({ message, provider: ctx.provider })?.code ?? 'ProviderNetworkError')
  }
  // No HTTP status and no provider body: the failure is ours (a bug or a local fault), not the provider's.
  if (status === undefined && facts.body === undefined) {
    return make(matchErrorPattern({ message, provider: ctx.provider })?.code ?? 'AgentRuntimeError')
  }
  // The message says most; then the status rules we are sure of; then status buckets.
  const pattern = matchErrorPattern({ message: facts.message, provider: ctx.provider, errorType: 'ProviderBizError' })?.code
  if (pattern) return make(pattern === 'RateLimitExceeded' ? 'QuotaLimitReached' : pattern)
  if (status === 403) return make('PermissionDenied')
  if (status === 404) return make('ModelNotFound')
  if (spec?.errorFallback) return make(spec.errorFallback)
  const refined = refineErrorCode({ errorType: 'ProviderBizError', message: facts.message, provider: ctx.provider, httpStatus: status })
  if (refined === 'RateLimitExceeded' || (status === 429 && !refined)) return make('QuotaLimitReached')
  return make(refined ?? 'ProviderBizError')
}
