import { matchesKeywords } from './keyword-match'
import { inferProviderFromModelId, type KeywordProvider } from './provider-inference'

/**
 * Per-provider keyword tables for guessing abilities of a model the catalogue does not know
 * (product.md §5). The spec names the providers and the matching rules, not the words: these
 * are ours, chosen from the providers' public naming schemes. `exclude` vetoes functionCall
 * and vision (not reasoning), e.g. OpenAI's audio models take neither tools nor images.
 */
export interface AbilityKeywordTable {
  functionCall: readonly string[]
  vision: readonly string[]
  reasoning: readonly string[]
  exclude?: readonly string[]
}

export const ABILITY_KEYWORDS: Record<KeywordProvider, AbilityKeywordTable> = {
  anthropic: {
    functionCall: ['claude'],
    vision: ['claude-3', 'claude-opus-4', 'claude-sonnet-4', 'claude-haiku-4', '!claude-3-5-haiku'],
    reasoning: ['claude-3-7', 'claude-3.7', '-4-', '-4.', 'opus-4', 'sonnet-4', 'haiku-4']
  },
  deepseek: {
    functionCall: ['deepseek-chat', 'deepseek-v3', 'deepseek-v4', '!r1'],
    vision: ['deepseek-vl', 'janus'],
    reasoning: ['r1', 'reasoner', 'deepseek-v3.1', 'deepseek-v3.2', 'deepseek-v4']
  },
  google: {
    functionCall: ['gemini', '!-image', '!embedding', '!tts'],
    vision: ['gemini', 'learnlm', '!embedding', '!tts'],
    reasoning: ['thinking', 'gemini-2.5', 'gemini-3', '!-image']
  },
  llama: {
    functionCall: ['llama-3.1', 'llama-3.2', 'llama-3.3', 'llama-4', 'llama3.1', 'llama3.2', 'llama3.3'],
    vision: ['llava', 'vision', 'llama-4', 'llama3.2-vision'],
    reasoning: []
  },
  moonshot: {
    functionCall: ['moonshot', 'kimi'],
    vision: ['vision', 'kimi-latest', 'kimi-k2.5', 'kimi-k2.6'],
    reasoning: ['thinking', 'kimi-k2.5', 'kimi-k2.6']
  },
  openai: {
    functionCall: ['gpt-3.5-turbo', 'gpt-4', 'gpt-5', '^o1', '^o3', '^o4', 'gpt-oss', '!o1-mini', '!o1-preview'],
    vision: ['gpt-4o', 'gpt-4.1', 'gpt-4-turbo', 'vision', 'gpt-5', '^o1', '^o3', '^o4', '!o1-mini', '!o1-preview', '!gpt-oss'],
    reasoning: ['^o1', '^o3', '^o4', 'gpt-5', 'gpt-oss', '!gpt-5-chat'],
    exclude: ['audio']
  },
  qwen: {
    functionCall: ['qwen-max', 'qwen-plus', 'qwen-turbo', 'qwen-flash', 'qwen2.5', 'qwen3', 'qwq', '!-vl', '!qvq'],
    vision: ['qvq', '-vl', 'vl-', 'omni'],
    reasoning: ['qwq', 'qvq', 'qwen3', 'thinking', '!instruct']
  },
  v0: {
    functionCall: ['v0'],
    vision: ['v0'],
    reasoning: ['v0-1.5']
  },
  volcengine: {
    functionCall: ['doubao-1.5', 'doubao-1-5', 'doubao-seed', 'doubao-pro'],
    vision: ['vision', 'doubao-seed', 'ui-tars', '-vl'],
    reasoning: ['thinking', 'doubao-seed-1.6', 'doubao-seed-1-6', 'ui-tars', 'r1']
  },
  xai: {
    functionCall: ['grok'],
    vision: ['vision', 'grok-4', '!grok-4-fast-non'],
    reasoning: ['grok-3-mini', 'grok-4', '!non-reasoning']
  },
  zeroone: {
    functionCall: ['fc', 'yi-large', 'yi-lightning'],
    vision: ['vision'],
    reasoning: []
  },
  zhipu: {
    functionCall: ['glm-4', 'glm-z1', 'glm-5', '!glm-4v'],
    vision: ['glm-4v', 'glm-4.1v', 'glm-4.5v', 'glm-4.6v', 'v-plus'],
    reasoning: ['glm-zero', 'glm-z1', 'glm-4.5', 'glm-4.6', 'glm-4.7', 'glm-5', 'thinking']
  }
}

export interface KeywordAbilities {
  functionCall: boolean
  vision: boolean
  reasoning: boolean
}

/** Abilities guessed from the id with the table of `provider` (inferred from the id when absent). */
export function detectAbilities(modelId: string, provider: KeywordProvider = inferProviderFromModelId(modelId)): KeywordAbilities {
  const table = ABILITY_KEYWORDS[provider]
  const excluded = table.exclude ? table.exclude.some((word) => modelId.toLowerCase().includes(word.toLowerCase())) : false
  return {
    functionCall: !excluded && matchesKeywords(modelId, table.functionCall),
    vision: !excluded && matchesKeywords(modelId, table.vision),
    reasoning: matchesKeywords(modelId, table.reasoning)
  }
}
