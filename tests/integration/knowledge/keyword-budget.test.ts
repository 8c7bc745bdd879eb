import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openStore } from '../../../src/core/store'
import { KnowledgeRepository, pickKeywordWords } from '../../../src/core/store/repositories/knowledge'

// Keyword retrieval ranks by a query's rarest words (issue 22 speed): bm25 over every chunk that
// holds "the" costs as much as the base, and tells nothing about the question.
describe('the keyword words of a query', () => {
  const docs = new Map([
    ['the', 90_000],
    ['server', 3_000],
    ['proxy', 120],
    ['configure', 800]
  ])

  it('takes the rarest words first while their chunks fit the budget', () => {
    expect(pickKeywordWords(['how', 'configure', 'the', 'proxy', 'server'], docs, 4_000)).toEqual(['how', 'proxy', 'configure', 'server'])
    expect(pickKeywordWords(['configure', 'the', 'proxy', 'server'], docs, 1_000)).toEqual(['proxy', 'configure'])
  })

  it('keeps the rarest word even when it alone is over the budget, and words the index lacks', () => {
    expect(pickKeywordWords(['the', 'server'], docs, 100)).toEqual(['server'])
    expect(pickKeywordWords(['the', 'café'], docs, 100)).toEqual(['café', 'the'])
  })

  it('finds the chunk of a rare word among thousands that share the common ones', () => {
    const { store } = openStore({ dataDir: mkdtempSync(join(tmpdir(), 'sb-kw-')), dailyBackupMs: 0 })
    try {
      const repo = new KnowledgeRepository(store.db)
      const kb = repo.create({ name: 'k', providerId: 'p', modelId: 'm', chunkSize: 1000, chunkOverlap: 0 })
      const other = repo.create({ name: 'other', providerId: 'p', modelId: 'm', chunkSize: 1000, chunkOverlap: 0 })
      const add = (kbId: string, n: number, texts: string[]) => {
        const file = repo.addFile({ kbId, name: `f${n}.md`, source: 's', path: `knowledge/${n}.md`, sha256: String(n), size: 1, status: 'Pending', stage: 'queued' })
        repo.saveChunks(file, texts.map((text, seq) => ({ seq, text, heading: null, page: null, start: 0, end: text.length })))
        repo.saveEmbeddings(kbId, file.id, repo.unembedded(file.id, texts.length).map((c, i) => ({ id: c.id, vector: [1, i % 7, n % 5, 1] })), 'm')
        repo.publish(kbId, file.id)
      }
      for (let f = 0; f < 60; f++) add(kb.id, f, Array.from({ length: 100 }, (_, i) => `the common words of the server log, line ${f}-${i}`))
      add(kb.id, 100, ['the server proxy setting lives in zebrafile'])
      add(other.id, 101, ['the server proxy setting of another base, zebrafile too'])
      const hits = repo.keyword(kb.id, 'where does the server keep the zebrafile proxy setting', 5)
      expect(hits[0]?.chunkId).toBeDefined()
      const [best] = repo.chunks([hits[0]!.chunkId])
      expect(best?.text).toBe('the server proxy setting lives in zebrafile')
      // Only this base's chunks, never the other base's.
      expect(repo.chunks(hits.map((h) => h.chunkId)).every((c) => c.kbId === kb.id)).toBe(true)
      // A question of common words only still finds something (its rarest word ranks).
      expect(repo.keyword(kb.id, 'the server', 5)).toHaveLength(5)
    } finally {
      store.close()
    }
  })
})
