/**
 * Max output tokens of Claude models (providers.md §9), used for the default `max_tokens`
 * when the request sets none. Longest prefix wins; ids may carry date or Bedrock suffixes.
 */
const MAX_OUTPUT_BY_PREFIX: Array<[prefix: string, maxOutput: number]> = [
  ['claude-opus-4-8', 128000],
  ['claude-opus-4-7', 128000],
  ['claude-opus-4-6', 128000],
  ['claude-opus-4-5', 64000],
  ['claude-opus-4-1', 32000],
  ['claude-opus-4', 32000],
  ['claude-opus-5', 128000],
  ['claude-sonnet-5', 128000],
  ['claude-fable-5', 128000],
  ['claude-sonnet-4-6', 64000],
  ['claude-sonnet-4-5', 64000],
  ['claude-sonnet-4', 64000],
  ['claude-haiku-4-5', 64000],
  ['claude-3-7-sonnet', 64000],
  ['claude-3-5-sonnet', 8192],
  ['claude-3-5-haiku', 8192]
]

/** Strips Bedrock / Vertex decorations: `us.anthropic.claude-…-v1:0`, `claude-…@20250514`. */
export const canonicalClaudeId = (model: string): string => {
  const bare = model.replace(/^(?:[a-z]{2,4}\.)?anthropic\./, '').replace(/@.*$/, '')
  return bare.toLowerCase()
}

export function claudeMaxOutput(model: string): number | undefined {
  const id = canonicalClaudeId(model)
  let best: [string, number] | undefined
  for (const entry of MAX_OUTPUT_BY_PREFIX) {
    if (id.startsWith(entry[0]) && (!best || entry[0].length > best[0].length)) best = entry
  }
  return best?.[1]
}

/** The model's max, else 4096 for claude-3-opus and claude-3-haiku, else 8192 (providers.md §7). */
export function defaultClaudeMaxTokens(model: string): number {
  const known = claudeMaxOutput(model)
  if (known) return known
  const id = canonicalClaudeId(model)
  if (id.startsWith('claude-3-opus') || id.startsWith('claude-3-haiku')) return 4096
  return 8192
}

/** Max tokens in thinking mode when the request sets none. */
export const CLAUDE_THINKING_MAX_TOKENS = 32000
export const CLAUDE_DEFAULT_THINKING_BUDGET = 1024
