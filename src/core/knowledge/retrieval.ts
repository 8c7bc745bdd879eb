import type { SearchHit } from '../../shared/knowledge/types'
import type { KeywordEvidence, KnowledgeRepository } from '../store/repositories/knowledge'

/** The constant of reciprocal rank fusion (Cormack et al.): 60 damps the head of each list. */
export const RRF_K = 60

export interface RankedList {
  /** Chunk ids, best first. */
  ids: readonly number[]
  /** How much each place's vote counts (1 when absent). */
  weights?: readonly number[]
}

/** Weighted reciprocal rank fusion: score(d) = Σ weight / (RRF_K + rank in list), rank 1-based. */
export function reciprocalRankFusion(lists: readonly RankedList[]): Map<number, { score: number; ranks: (number | null)[] }> {
  const out = new Map<number, { score: number; ranks: (number | null)[] }>()
  lists.forEach((list, li) => {
    list.ids.forEach((id, i) => {
      let entry = out.get(id)
      if (!entry) {
        entry = { score: 0, ranks: lists.map(() => null) }
        out.set(id, entry)
      }
      entry.score += (list.weights?.[i] ?? 1) / (RRF_K + i + 1)
      entry.ranks[li] = i + 1
    })
  })
  return out
}

/** How much more the keyword list's first counts when nothing else comes near its score. */
export const DECISIVE_BONUS = 2

/**
 * The keyword side's votes, weighted by how decisive its evidence is. A chunk's vote shrinks with
 * its bm25 score relative to the best (a chunk matching only the question's common words scores a
 * fraction of one holding its rare term), and the whole list counts up to 1 + DECISIVE_BONUS times
 * as much when its first stands apart from its second (the score gap at the head). Plain rank
 * fusion gives the 30th keyword match as much as a mediocre vector match, and so lets chunks that
 * are middling in both lists push out the one exact hit.
 */
export function keywordWeights(scores: readonly number[]): number[] {
  const best = scores[0]
  if (best === undefined || !(best > 0)) return scores.map(() => 1)
  const gap = scores.length > 1 ? Math.max(0, 1 - scores[1]! / best) : 1
  const head = 1 + DECISIVE_BONUS * gap
  return scores.map((s) => head * Math.max(0, s / best))
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

type Fused = [number, { score: number; ranks: (number | null)[] }]

/**
 * The fused head with every rare-term chunk in it: one missing takes the place of the lowest
 * chunk that is not one, at most half of the places go to them, and the order stays by score.
 */
export function keepRareChunks(sorted: readonly Fused[], rare: readonly number[], topK: number, blank: () => Fused[1]): Fused[] {
  const head = sorted.slice(0, topK)
  const pinned = rare.slice(0, Math.max(1, Math.ceil(topK / 2)))
  const missing = pinned.filter((id) => !head.some(([h]) => h === id))
  if (missing.length === 0) return head
  const byId = new Map(sorted)
  const keep = new Set(pinned)
  let room = head.length + missing.length - topK
  for (let i = head.length - 1; i >= 0 && room > 0; i--) {
    if (keep.has(head[i]![0])) continue
    head.splice(i, 1)
    room--
  }
  for (const id of missing) head.push([id, byId.get(id) ?? blank()])
  return head.sort((a, b) => b[1].score - a[1].score || a[0] - b[0])
}

/**
 * Hybrid retrieval: k-NN over the base's vectors and bm25 over its text, fused by rank (the two
 * scores are not comparable, their ranks are), the keyword side weighted by how decisive it is,
 * and the chunks of a rare query term kept whatever the vectors say. Only published chunks are
 * in either index, so a half-indexed file is never returned.
 */
export function hybridSearch(repo: KnowledgeRepository, query: HybridQuery): SearchHit[] {
  const candidates = query.candidates ?? Math.max(32, query.topK * 4)
  const lists: RankedList[] = []
  const kinds: ('vector' | 'text')[] = []
  const rare: number[] = []
  for (const kbId of query.kbIds) {
    const vector = query.vectors.get(kbId)
    if (vector) {
      lists.push({ ids: repo.nearest(kbId, vector, candidates).map((r) => r.chunkId) })
      kinds.push('vector')
    }
    const evidence: KeywordEvidence = repo.keywordEvidence(kbId, query.text, candidates)
    lists.push({ ids: evidence.hits.map((h) => h.chunkId), weights: keywordWeights(evidence.hits.map((h) => h.score)) })
    kinds.push('text')
    rare.push(...evidence.rare)
  }
  const sorted = [...reciprocalRankFusion(lists).entries()].sort((a, b) => b[1].score - a[1].score || a[0] - b[0])
  const fused = keepRareChunks(sorted, rare, query.topK, () => ({ score: 0, ranks: lists.map(() => null) }))
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
