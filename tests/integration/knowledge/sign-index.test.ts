import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openStore } from '../../../src/core/store'
import { KnowledgeRepository, signBits } from '../../../src/core/store/repositories/knowledge'
import { SignIndex } from '../../../src/core/store/repositories/sign-index'

// The in-memory Hamming scan must find what sqlite-vec's bit k-NN finds: the same distances for
// the k nearest (ties may order differently), read from the bits vec0 itself stores.
let seed = 7
const random = () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
const vector = (dims: number) => Array.from({ length: dims }, () => random() - 0.5)

describe('the in-memory sign-bit index', () => {
  for (const dims of [768, 100]) {
    it(`finds the same nearest distances as sqlite-vec (bit[${dims}])`, () => {
      const { store } = openStore({ dataDir: mkdtempSync(join(tmpdir(), 'sb-sign-')), dailyBackupMs: 0 })
      try {
        const sqlite = store.db.sqlite
        const width = Math.ceil(dims / 8) * 8
        sqlite.exec(`CREATE VIRTUAL TABLE v USING vec0(embedding bit[${width}])`)
        const insert = sqlite.prepare('INSERT INTO v (rowid, embedding) VALUES (?, vec_bit(?))')
        sqlite.transaction(() => {
          for (let i = 1; i <= 3000; i++) insert.run(BigInt(i), signBits(vector(dims)))
        })()
        const rows = sqlite.prepare('SELECT rowid AS id, embedding AS bits FROM v').all() as { id: number; bits: Uint8Array }[]
        const index = SignIndex.build(rows, width / 8)
        expect(index.size).toBe(3000)
        for (let q = 0; q < 5; q++) {
          const bits = signBits(vector(dims))
          const ours = index.nearest(bits, 50)
          const theirs = sqlite.prepare('SELECT rowid AS id, distance FROM v WHERE embedding MATCH vec_bit(?) AND k = 50').all(bits) as { id: number; distance: number }[]
          const distance = new Map(rows.map((r) => [Number(r.id), hamming(r.bits, bits)]))
          expect(ours).toHaveLength(50)
          expect(ours.map((id) => distance.get(id)).sort((a, b) => a! - b!)).toEqual(theirs.map((r) => r.distance).sort((a, b) => a - b))
        }
      } finally {
        store.close()
      }
    })
  }

  it('a search after a file is published or removed sees the change (the index is rebuilt)', () => {
    const { store } = openStore({ dataDir: mkdtempSync(join(tmpdir(), 'sb-sign-')), dailyBackupMs: 0 })
    try {
      const repo = new KnowledgeRepository(store.db)
      const kb = repo.create({ name: 'k', providerId: 'p', modelId: 'm', chunkSize: 1000, chunkOverlap: 0 })
      const add = (n: number, v: number[]) => {
        const file = repo.addFile({ kbId: kb.id, name: `f${n}.md`, source: 's', path: `knowledge/${n}.md`, sha256: String(n), size: 1, status: 'Pending', stage: 'queued' })
        repo.saveChunks(file, [{ seq: 0, text: `text ${n}`, heading: null, page: null, start: 0, end: 6 }])
        const [chunk] = repo.unembedded(file.id, 1)
        repo.saveEmbeddings(kb.id, file.id, [{ id: chunk!.id, vector: v }], 'm')
        repo.publish(kb.id, file.id)
        return { file, chunkId: chunk!.id }
      }
      const a = add(1, [1, 1, 1, 1, -1, -1, -1, -1])
      expect(repo.nearest(kb.id, [1, 1, 1, 1, -1, -1, -1, -1], 1)[0]!.chunkId).toBe(a.chunkId)
      const b = add(2, [-1, -1, -1, -1, 1, 1, 1, 1])
      expect(repo.nearest(kb.id, [-1, -1, -1, -1, 1, 1, 1, 1], 1)[0]!.chunkId).toBe(b.chunkId)
      repo.deleteFile(b.file.id)
      expect(repo.nearest(kb.id, [-1, -1, -1, -1, 1, 1, 1, 1], 5).map((r) => r.chunkId)).toEqual([a.chunkId])
    } finally {
      store.close()
    }
  })
})

describe('the in-memory index and other connections', () => {
  it('a change made through another connection (a backup restored in place) is seen by the next search', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sb-sign-'))
    const { store } = openStore({ dataDir, dailyBackupMs: 0 })
    try {
      const repo = new KnowledgeRepository(store.db)
      const kb = repo.create({ name: 'k', providerId: 'p', modelId: 'm', chunkSize: 1000, chunkOverlap: 0 })
      const add = (r: KnowledgeRepository, n: number, v: number[]) => {
        const file = r.addFile({ kbId: kb.id, name: `f${n}.md`, source: 's', path: `knowledge/${n}.md`, sha256: String(n), size: 1, status: 'Pending', stage: 'queued' })
        r.saveChunks(file, [{ seq: 0, text: `text ${n}`, heading: null, page: null, start: 0, end: 6 }])
        const [chunk] = r.unembedded(file.id, 1)
        r.saveEmbeddings(kb.id, file.id, [{ id: chunk!.id, vector: v }], 'm')
        r.publish(kb.id, file.id)
        return chunk!.id
      }
      const first = add(repo, 1, [1, 1, 1, 1, -1, -1, -1, -1])
      expect(repo.nearest(kb.id, [-1, -1, -1, -1, 1, 1, 1, 1], 5).map((r) => r.chunkId)).toEqual([first])
      // Another connection to the same file writes the vectors of a new file, as SQLite's online
      // backup does when a restore puts a backup in place.
      const second = openStore({ dataDir, dailyBackupMs: 0 }).store
      try {
        const added = add(new KnowledgeRepository(second.db), 2, [-1, -1, -1, -1, 1, 1, 1, 1])
        expect(repo.nearest(kb.id, [-1, -1, -1, -1, 1, 1, 1, 1], 1)[0]?.chunkId).toBe(added)
      } finally {
        second.close()
      }
    } finally {
      store.close()
    }
  })
})

function hamming(a: Uint8Array, b: Uint8Array): number {
  let d = 0
  for (let i = 0; i < a.length; i++) {
    let x = a[i]! ^ b[i]!
    while (x) {
      d += x & 1
      x >>= 1
    }
  }
  return d
}
