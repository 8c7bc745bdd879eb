import { MESSAGE_PATTERNS, type MessagePattern } from './message-patterns'
import type { ErrorTypeName } from './catalogue'

export interface PatternInput {
  message?: string
  errorType?: string
  provider?: string
}

export interface PatternMatch {
  code: ErrorTypeName
  pattern: MessagePattern
}

/** The first message pattern that identifies the error (error-message-patterns.tsv), or undefined. */
export function matchErrorPattern(input: PatternInput): PatternMatch | undefined {
  const message = input.message
  if (!message) return undefined
  let lower: string | undefined
  for (const pattern of MESSAGE_PATTERNS) {
    if (pattern.providers && (!input.provider || !pattern.providers.includes(input.provider))) continue
    if (pattern.errorTypes && (!input.errorType || !pattern.errorTypes.includes(input.errorType))) continue
    if (pattern.ci) {
      lower ??= message.toLowerCase()
      if (lower.includes(pattern.value.toLowerCase())) return { code: pattern.code, pattern }
    } else if (message.includes(pattern.value)) return { code: pattern.code, pattern }
  }
  return undefined
}

/** Types that say only "something failed"; a message pattern or the status may say more. */
const REFINABLE = new Set(['ProviderBizError', 'AgentRuntimeError', 'UpstreamHttpError', 'UnknownChatFetchError'])

export interface RefineInput extends PatternInput {
  errorType: string
  httpStatus?: number
}

/**
 * A more specific type for a generic error (ProviderBizError, a bare "500" …): first by
 * message pattern, then by HTTP status (402 → quota, 5xx → service unavailable, other 4xx →
 * UpstreamHttpError). Returns undefined when the type is already specific or nothing is known.
 */
export function refineErrorCode(input: RefineInput): ErrorTypeName | undefined {
  const numeric = /^\d{3}$/.test(input.errorType)
  if (!numeric && !REFINABLE.has(input.errorType)) return undefined
  const match = matchErrorPattern(input)
  if (match && match.code !== input.errorType) return match.code
  if (match) return undefined
  // Un-typed wrappers (a bare "500", AgentRuntimeError) are refined by message only: their status is ours, not the provider's.
  if (input.errorType !== 'ProviderBizError' && input.errorType !== 'UnknownChatFetchError') return undefined
  const status = input.httpStatus ?? (numeric ? Number(input.errorType) : leadingStatus(input.message))
  if (status === undefined) return undefined
  if (status === 402) return 'InsufficientQuota'
  if (status === 429) return 'RateLimitExceeded'
  if (status >= 500 && status <= 599) return 'ProviderServiceUnavailable'
  if (status >= 400 && status <= 499) return 'UpstreamHttpError'
  return undefined
}

function leadingStatus(message: string | undefined): number | undefined {
  const m = message ? /^(\d{3})\b/.exec(message) : null
  return m ? Number(m[1]) : undefined
}
