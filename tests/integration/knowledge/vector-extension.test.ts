import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openStore } from '../../../src/core/store'
import { KnowledgeRepository } from '../../../src/core/store/repositories/knowledge'
import { markVectorsMissing } from '../../../src/core/store/vector-extension'

describe('the sqlite-vec extension', () => {
  it('is loaded into every connection the store opens (the real prebuilt extension from npm)', () => {
    const { store } = openStore({ dataDir: mkdtempSync(join(tmpdir(), 'sb-vec-')), dailyBackupMs: 0 })
    try {
      expect(store.db.sqlite.prepare('SELECT vec_version() AS v').get()).toEqual({ v: 'v0.1.9' })
    } finally {
      store.close()
    }
  })

  it('when it is missing, knowledge bases say so and name the platform; the rest of the store works', () => {
    const { store } = openStore({ dataDir: mkdtempSync(join(tmpdir(), 'sb-vec-')), dailyBackupMs: 0 })
    try {
      markVectorsMissing(store.db.sqlite, 'cannot open shared object file')
      const repo = new KnowledgeRepository(store.db)
      expect(() => repo.create({ name: 'x', providerId: 'openai', modelId: 'm', chunkSize: 1000, chunkOverlap: 0 })).toThrow(
        new RegExp(`Vector search is not available: the sqlite-vec extension for ${process.platform}-${process.arch} could not be loaded \\(cannot open shared object file\\)`)
      )
      expect(store.agents.create({ name: 'still fine' }).name).toBe('still fine')
    } finally {
      store.close()
    }
  })
})
