import type { SearchHit } from '../../shared/knowledge/types'
import type { KnowledgeRepository } from '../store/repositories/knowledge'

/** The constant of reciprocal rank fusion (Cormack et al.): 60 damps the head of each list. */
export const RRF_K = 60

export interface RankedList {
  /** Chunk ids, best first. */
  ids: readonly number[]
}

/** Reciprocal rank fusion: score(d) = Σ 1 / (RRF_K + rank in list), rank 1-based. */
export function reciprocalRankFusion(lists: readonly RankedList[]): Map<number, { score: number; ranks: (number | null)[] }> {
  const out = new Map<number, { score: number; ranks: (number | null)[] }>()
  lists.forEach((list, li) => {
    list.ids.forEach((id, i) => {
      let entry = out.get(id)
      if (!entry) {
        entry = { score: 0, ranks: lists.map(() => null) }
        out.set(id, entry)
      }
      entry.score += 1 / (RRF_K + i + 1)
      entry.ranks[li] = i + 1
    })
  })
  return out
}

export interface HybridQuery {
  kbIds: readonly string[]
  text: string
  /** The query's vector per base (bases of one model share it). */
  vectors: ReadonlyMap<string, readonly number[]>
  topK: number
  /** How many candidates each list contributes before fusion. */
  candidates?: number
}

/**
 * Hybrid retrieval: k-NN over the base's vectors and bm25 over its text, fused by rank (the two
 * scores are not comparable, their ranks are). Only published chunks are in either index, so a
 * half-indexed file is never returned.
 */
export function hybridSearch(repo: KnowledgeRepository, query: HybridQuery): SearchHit[] {
  const candidates = query.candidates ?? Math.max(32, query.topK * 4)
  const lists: RankedList[] = []
  const kinds: ('vector' | 'text')[] = []
  for (const kbId of query.kbIds) {
    const vector = query.vectors.get(kbId)
    if (vector) {
      lists.push({ ids: repo.nearest(kbId, vector, candidates).map((r) => r.chunkId) })
      kinds.push('vector')
    }
    lists.push({ ids: repo.keyword(kbId, query.text, candidates).map((r) => r.chunkId) })
    kinds.push('text')
  }
  const fused = [...reciprocalRankFusion(lists).entries()].sort((a, b) => b[1].score - a[1].score || a[0] - b[0]).slice(0, query.topK)
  const info = new Map(repo.chunks(fused.map(([id]) => id)).map((c) => [c.chunkId, c]))
  const hits: SearchHit[] = []
  for (const [id, { score, ranks }] of fused) {
    const chunk = info.get(id)
    if (!chunk) continue
    const rank = (kind: 'vector' | 'text') => {
      const found = ranks.filter((r, i) => kinds[i] === kind && r !== null) as number[]
      return found.length ? Math.min(...found) : null
    }
    hits.push({ ...chunk, score, vectorRank: rank('vector'), textRank: rank('text') })
  }
  return hits
}
