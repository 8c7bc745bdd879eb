/** JSON.parse that answers undefined instead of throwing, and for non-text input (product.md §5). */
export function safeParseJson<T = unknown>(text: unknown): T | undefined {
  if (typeof text !== 'string') return undefined
  try {
    return JSON.parse(text) as T
  } catch {
    return undefined
  }
}
