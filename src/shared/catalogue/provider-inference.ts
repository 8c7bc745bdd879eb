/**
 * Provider inference from a model id (product.md §5), default openai. Rows are tried in the
 * spec's order; the first that matches wins, so "deepseek-r1-distill-llama" is deepseek.
 * The o-series patterns (o1, o3, o4) are prefixes (optionally after a vendor slash):
 * as substrings they would claim ids such as "glm-4.5-airo3…" or "qwen-turbo1".
 */
export type KeywordProvider =
  | 'anthropic'
  | 'deepseek'
  | 'google'
  | 'llama'
  | 'moonshot'
  | 'openai'
  | 'qwen'
  | 'v0'
  | 'volcengine'
  | 'xai'
  | 'zeroone'
  | 'zhipu'

const RULES: ReadonlyArray<readonly [KeywordProvider, readonly string[]]> = [
  ['anthropic', ['claude']],
  ['deepseek', ['deepseek']],
  ['google', ['gemini', 'imagen']],
  ['llama', ['llama', 'llava']],
  ['moonshot', ['moonshot', 'kimi']],
  ['openai', ['^o1', '^o3', '^o4', 'gpt-']],
  ['qwen', ['qwen', 'qwq', 'qvq']],
  ['v0', ['v0']],
  ['volcengine', ['doubao']],
  ['xai', ['grok']],
  ['zeroone', ['yi-']],
  ['zhipu', ['glm']]
]

export function inferProviderFromModelId(modelId: string): KeywordProvider {
  const id = modelId.toLowerCase()
  const bare = id.slice(id.lastIndexOf('/') + 1)
  for (const [provider, patterns] of RULES) {
    for (const pattern of patterns) {
      if (pattern.startsWith('^') ? bare.startsWith(pattern.slice(1)) : id.includes(pattern)) return provider
    }
  }
  return 'openai'
}
