/**
 * Ids that never belong in a chat model list (providers.md §5): embeddings, legacy
 * completion models, moderation, speech and DALL·E. Substring match on the lower-cased id.
 */
export const CHAT_LIST_EXCLUDED_KEYWORDS = ['embedding', 'davinci', 'curie', 'moderation', 'ada', 'babbage', 'tts', 'whisper', 'dall-e'] as const

export const isExcludedFromChatList = (modelId: string): boolean => {
  const id = modelId.toLowerCase()
  return CHAT_LIST_EXCLUDED_KEYWORDS.some((k) => id.includes(k))
}

