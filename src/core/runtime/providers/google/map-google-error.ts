import type { AppError } from '../../../../shared/errors/app-error'
import { redactText } from '../../../../shared/errors/redact'
import { isAbortError, isConnectionError, mapProviderError, readErrorFacts } from '../../errors/map-provider-error'
import { runtimeError } from '../../runtime-error'
import { googleErrorRules } from './google-error-rule'
import type { ErrorTypeName } from '../../../../shared/errors/catalogue'

export interface GoogleErrorContext {
  provider: string
  secrets: readonly (string | undefined)[]
  baseURL?: string
  aborted?: boolean
}

/** The SDK's ApiError message embeds the JSON body; pull its `error.message` out when present. */
function providerMessage(raw: string): { message: string; body?: unknown } {
  const start = raw.indexOf('{')
  if (start >= 0) {
    try {
      const body = JSON.parse(raw.slice(start)) as { error?: { message?: string } }
      if (body.error?.message) return { message: body.error.message, body }
    } catch {
      // not JSON: keep the raw text
    }
  }
  return { message: raw }
}

/**
 * Gemini / Vertex errors (providers.md §8): 'location is not supported' → LocationNotSupportError,
 * 400 'API key not valid' → InvalidProviderAPIKey, 429 → QuotaLimitReached, others ProviderBizError.
 */
export function mapGoogleError(error: unknown, ctx: GoogleErrorContext): AppError {
  if (ctx.aborted || isAbortError(error)) return mapProviderError(error, { ...ctx, aborted: true, rules: googleErrorRules })
  const facts = readErrorFacts(error)
  if (facts.status === undefined && isConnectionError(error)) return mapProviderError(error, { ...ctx, rules: googleErrorRules })
  const { message: rawMessage, body } = providerMessage(facts.message)
  const message = redactText(rawMessage, ctx.secrets)
  const detail: Record<string, unknown> = {}
  if (facts.status !== undefined) detail.status = facts.status
  if (body !== undefined) detail.body = JSON.parse(redactText(JSON.stringify(body), ctx.secrets))
  const make = (type: ErrorTypeName) => runtimeError(type, message, ctx.provider, Object.keys(detail).length ? detail : undefined)
  const lower = rawMessage.toLowerCase()
  if (lower.includes('location is not supported')) return make('LocationNotSupportError')
  if (facts.status === 400 && rawMessage.includes('API key not valid')) return make('InvalidProviderAPIKey')
  if (facts.status === 401) return make('InvalidProviderAPIKey')
  if (facts.status === 429) return make('QuotaLimitReached')
  return make('ProviderBizError')
}
