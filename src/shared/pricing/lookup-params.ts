import type { UsageRecord } from '../stream/usage'
import type { LookupValue } from './lookup-key'

/** What a chat request says about the parameters lookup prices are keyed by. */
export interface ChatPricingContext {
  modelId: string
  /** Extended thinking as requested (`thinking.type`), when the request set it. */
  thinking?: 'enabled' | 'disabled'
  /** Prompt-cache lifetime the request asked for; Anthropic's default for `ephemeral` is 5 minutes. */
  cacheTtl?: '5m' | '1h'
}

/** The prompt-cache lifetime of a cache_control block without a ttl (Anthropic's documented default). */
export const DEFAULT_CACHE_TTL = '5m'

/**
 * Values for the lookup-priced units of providers.md §3 (ttl, thinkingMode). The input-token
 * ranges come from the usage itself (computeChatCost). Without these, a lookup unit has no key
 * and costs nothing, which made every Claude cache write and every Qwen Plus reply $0.
 *
 * Thinking counts as on when it was asked for, when the model is a thinking variant
 * (`…-thinking`, which DashScope runs with thinking always on), or when the usage reports
 * reasoning tokens (the provider thought, whatever was asked).
 */
export function chatLookupParams(ctx: ChatPricingContext, usage?: UsageRecord): Record<string, LookupValue> {
  const thought = (usage?.outputReasoningTokens ?? 0) > 0
  const thinkingMode = ctx.thinking === 'enabled' || /-thinking/i.test(ctx.modelId) || thought
  return { ttl: ctx.cacheTtl ?? DEFAULT_CACHE_TTL, thinkingMode }
}
