import { describe, expect, it } from 'vitest'
import { keepRareChunks, keywordWeights } from '../../../src/core/knowledge/retrieval'
import { informativeWords } from '../../../src/core/store/repositories/knowledge'
import { goodVector, measureQuality, naiveVector, type QualityScore } from './quality-suite'

// Hybrid retrieval must keep the one file holding a rare exact term: in templated documents (the
// same background around one key fact each) the keyword side is what finds it, whatever the
// embedder says. The same suite is in `npm run bench -- knowledge` with its numbers printed.
const of = (scores: QualityScore[], kind: QualityScore['kind']) => scores.find((s) => s.kind === kind)!

describe('retrieval quality over a templated corpus', () => {
  it('finds the file of a rare term first with a naive embedder', async () => {
    const scores = await measureQuality(naiveVector, 5)
    expect(of(scores, 'rare term')).toMatchObject({ recall: 1, mrr: 1 })
    expect(of(scores, 'paraphrase')).toMatchObject({ recall: 1 })
  }, 60_000)

  it('finds it with a good embedder too, and keeps what only the embedder can find', async () => {
    const scores = await measureQuality((t) => goodVector(t), 5)
    expect(of(scores, 'rare term')).toMatchObject({ recall: 1, mrr: 1 })
    expect(of(scores, 'paraphrase')).toMatchObject({ recall: 1 })
    // Questions in other words than the file's (synonyms): only the vectors can answer them, and
    // the keyword side must not drown them (plain fusion found 0.54 of them here).
    expect(of(scores, 'synonym').recall).toBeGreaterThanOrEqual(0.8)
  }, 60_000)
})

describe('the parts of the keyword side', () => {
  it('drops function words and words most chunks hold, keeping something to ask', () => {
    const docs = new Map([
      ['printer', 90],
      ['address', 80],
      ['magpie', 1]
    ])
    expect(informativeWords(['what', 'is', 'the', 'ip', 'address', 'of', 'printer', 'magpie'], docs, 100)).toEqual(['ip', 'magpie'])
    expect(informativeWords(['the', 'printer', 'address'], docs, 100)).toEqual(['printer', 'address'])
    expect(informativeWords(['what', 'is', 'it'], docs, 100)).toEqual(['it'])
    expect(informativeWords(['the', 'who'], docs, 100)).toEqual(['the', 'who'])
    // Too few chunks for shares to mean anything: only function words go.
    expect(informativeWords(['printer', 'address'], new Map([['printer', 4]]), 5)).toEqual(['printer', 'address'])
  })

  it('weights the keyword list by the gap at its head and each score against the best', () => {
    expect(keywordWeights([10])).toEqual([3])
    expect(keywordWeights([10, 10, 5])).toEqual([1, 1, 0.5])
    const [first, second] = keywordWeights([10, 2])
    expect(first).toBeCloseTo(2.6)
    expect(second).toBeCloseTo(0.52)
  })

  it('keeps a rare-term chunk that fusion left out, in place of the lowest other one', () => {
    const entry = (score: number) => ({ score, ranks: [null] as (number | null)[] })
    const sorted: [number, ReturnType<typeof entry>][] = [1, 2, 3, 4, 5, 6].map((id) => [id, entry(1 / id)])
    expect(keepRareChunks(sorted, [6], 3, () => entry(0)).map(([id]) => id)).toEqual([1, 2, 6])
    // A rare chunk not in either list at all still comes back.
    expect(keepRareChunks(sorted, [9], 3, () => entry(0)).map(([id]) => id)).toEqual([1, 2, 9])
    // At most half of the places go to rare chunks.
    expect(keepRareChunks(sorted, [4, 5, 6], 4, () => entry(0)).map(([id]) => id)).toEqual([1, 2, 4, 5])
  })
})
