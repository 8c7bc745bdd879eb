/** Retrieval figures of one question: which reference files came back among the top k, and how high. */

const norm = (name: string) => name.trim().toLowerCase().split(/[\\/]/).pop() ?? ''

/**
 * recall@k: the share of reference files with at least one chunk in the top k. Reciprocal rank:
 * 1 / rank of the first chunk from any reference file (0 when none). A record without reference
 * files counts as neither (null).
 */
export function retrievalScores(retrievedFileNames: readonly string[], referenceFiles: readonly string[], k: number): { recall: number; reciprocalRank: number; hitRank: number | null } | null {
  const refs = new Set(referenceFiles.map(norm).filter(Boolean))
  if (refs.size === 0) return null
  const top = retrievedFileNames.slice(0, k).map(norm)
  const found = new Set(top.filter((n) => refs.has(n)))
  const first = top.findIndex((n) => refs.has(n))
  return { recall: found.size / refs.size, reciprocalRank: first >= 0 ? 1 / (first + 1) : 0, hitRank: first >= 0 ? first + 1 : null }
}

export const mean = (values: readonly number[]): number | null => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : null)
