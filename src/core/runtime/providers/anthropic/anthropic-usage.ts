import type { UsageRecord } from '../../../../shared/stream/usage'

/** The usage-bearing parts of Anthropic's stream events (also what Bedrock relays for Claude). */
export interface AnthropicUsageEvent {
  type: string
  message?: { usage?: AnthropicRawUsage | null } | null
  usage?: AnthropicRawUsage | null
}

export interface AnthropicRawUsage {
  input_tokens?: number | null
  output_tokens?: number | null
  cache_creation_input_tokens?: number | null
  cache_read_input_tokens?: number | null
}

const withTotal = (usage: UsageRecord): UsageRecord => ({
  ...usage,
  totalTokens: (usage.totalInputTokens ?? 0) + (usage.totalOutputTokens ?? 0)
})

/**
 * Converts `message_start` / `message_delta` usage into a {@link UsageRecord}.
 *
 * Input is only known at `message_start`; `message_delta` carries the output count.
 * Anthropic documents the `message_delta` counts as cumulative, so the delta's
 * `output_tokens` replaces the start's provisional count instead of being added to it.
 * Returns undefined when there is nothing to report.
 */
export function convertAnthropicUsage(event: AnthropicUsageEvent, previous?: UsageRecord): UsageRecord | undefined {
  if (event.type === 'message_start') {
    const raw = event.message?.usage
    if (!raw) return previous
    const miss = raw.input_tokens ?? 0
    const cacheRead = raw.cache_read_input_tokens ?? 0
    const cacheWrite = raw.cache_creation_input_tokens ?? 0
    const usage: UsageRecord = { inputCacheMissTokens: miss }
    if (cacheRead > 0) usage.inputCachedTokens = cacheRead
    if (cacheWrite > 0) usage.inputWriteCacheTokens = cacheWrite
    usage.totalInputTokens = miss + cacheRead + cacheWrite
    usage.totalOutputTokens = raw.output_tokens ?? 0
    return withTotal(usage)
  }
  if (event.type === 'message_delta') {
    const output = event.usage?.output_tokens
    if (typeof output !== 'number') return previous ? withTotal(previous) : undefined
    const base = previous ?? {}
    const usage: UsageRecord = { ...base, totalOutputTokens: output }
    // A proxy that reports input only at the end (some Anthropic-compatible gateways).
    const input = event.usage?.input_tokens
    if (typeof input === 'number' && base.totalInputTokens === undefined) {
      usage.inputCacheMissTokens = input
      usage.totalInputTokens = input
    }
    return withTotal(usage)
  }
  return previous
}
