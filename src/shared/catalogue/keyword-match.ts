/**
 * Keyword matching of product.md §5, on the lower-cased model id:
 * `!x` excludes (any id containing x never matches), `^x` is a prefix match,
 * anything else is a substring match.
 */
export function matchesKeywords(modelId: string, keywords: readonly string[]): boolean {
  const id = modelId.toLowerCase()
  let matched = false
  for (const raw of keywords) {
    const keyword = raw.toLowerCase()
    if (keyword.startsWith('!')) {
      if (id.includes(keyword.slice(1))) return false
    } else if (!matched) {
      matched = keyword.startsWith('^') ? id.startsWith(keyword.slice(1)) : id.includes(keyword)
    }
  }
  return matched
}
