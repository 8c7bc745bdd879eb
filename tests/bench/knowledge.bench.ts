import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import v8 from 'node:v8'
import { runInNewContext } from 'node:vm'
import { headlessKnowledge } from '../../src/core/knowledge/headless'
import { chunkText } from '../../src/core/knowledge/chunker'
import { hybridSearch } from '../../src/core/knowledge/retrieval'
import type { ProviderRuntime } from '../../src/core/runtime/types'
import { openStore } from '../../src/core/store'
import { ftsQuery, KnowledgeRepository } from '../../src/core/store/repositories/knowledge'
import { formatScores, goodVector, measureQuality, naiveVector } from '../integration/knowledge/quality-suite'
import { fmt, medianMs, report } from './util'

// Knowledge bases (issue 22):
// 1. hybrid retrieval over 100,000 chunks of 768-dimension vectors, against plain sqlite-vec
//    k-NN and plain FTS5 bm25 on the same data in the same run (goal: median < 50 ms);
// 2. local work per chunk (extract → chunk → store → vectors → publish) with an embedding
//    service that answers at once, against a bare INSERT of the same rows (goal: < 1 ms);
// 3. memory while indexing 10,000 files (goal: flat);
// 4. retrieval quality: recall@k and MRR over a templated corpus (rare-term questions,
//    paraphrases, synonyms) with a deliberately naive embedder and a good one (goal: rare-term
//    recall@5 = 1.00 with either embedder).
const CHUNKS = Number(process.env['KB_BENCH_CHUNKS'] ?? 100_000)
const DIMS = 768
const FILES = Number(process.env['KB_BENCH_FILES'] ?? 10_000)

// mulberry32: a seeded generator in 32-bit integer arithmetic (a float LCG loses precision and cycles).
let seed = 42
const random = () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
const VOCAB = Array.from({ length: 8000 }, (_, i) => `w${i.toString(36)}${'aeiou'[i % 5]}`)
const sentence = (n: number) => Array.from({ length: n }, () => VOCAB[Math.floor(random() ** 2 * VOCAB.length)]).join(' ')
const randomVector = (): number[] => {
  const v = Array.from({ length: DIMS }, () => random() - 0.5)
  const norm = Math.hypot(...v)
  return v.map((x) => x / norm)
}

/** A runtime whose embeddings cost (almost) nothing, so what is measured is our own work. */
const POOL = new Map<number, number[][]>()
const cheapVector = (text: string, dims: number): number[] => {
  let pool = POOL.get(dims)
  if (!pool) POOL.set(dims, (pool = Array.from({ length: 97 }, () => randomVector().slice(0, dims))))
  return pool[text.length % pool.length]!
}
const instantRuntime = (dims: number): ProviderRuntime => ({
  id: 'bench',
  embeddings: async (request) => ({ embeddings: (typeof request.input === "string" ? [request.input] : request.input).map((t) => cheapVector(t, dims)) })
})

async function retrieval(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sb-kb-bench-'))
  const { store } = openStore({ dataDir, dailyBackupMs: 0 })
  try {
    const repo = new KnowledgeRepository(store.db)
    const kb = repo.create({ name: 'bench', providerId: 'bench', modelId: 'random', chunkSize: 1200, chunkOverlap: 0 })
    const perFile = 100
    // The baseline: the same vectors as float32 in a plain vec0 table, searched by brute force.
    const sqlite = store.db.sqlite
    sqlite.exec(`CREATE VIRTUAL TABLE plain_vec USING vec0(embedding float[${DIMS}] distance_metric=cosine)`)
    const plainInsert = sqlite.prepare('INSERT INTO plain_vec (rowid, embedding) VALUES (?, ?)')
    const t0 = performance.now()
    for (let f = 0; f < CHUNKS / perFile; f++) {
      const file = repo.addFile({ kbId: kb.id, name: `doc-${f}.md`, source: 'bench', path: `knowledge/${f}.md`, sha256: String(f), size: 1, status: 'Pending', stage: 'queued' })
      repo.saveChunks(file, Array.from({ length: perFile }, (_, i) => ({ seq: i, text: sentence(60), heading: null, page: null, start: i * 500, end: i * 500 + 400 })))
      const ids = repo.unembedded(file.id, perFile)
      const vectors = ids.map((c) => ({ id: c.id, vector: randomVector() }))
      repo.saveEmbeddings(kb.id, file.id, vectors, 'random')
      sqlite.transaction(() => vectors.forEach((v) => plainInsert.run(BigInt(v.id), Buffer.from(new Float32Array(v.vector).buffer))))()
      repo.publish(kb.id, file.id)
    }
    console.log(`built ${CHUNKS.toLocaleString('en')} chunks × ${DIMS} dims in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
    const queries = Array.from({ length: 20 }, () => ({ text: sentence(8), vector: randomVector() }))
    let q = 0
    const next = () => queries[q++ % queries.length]!
    const knn = sqlite.prepare("SELECT rowid, distance FROM plain_vec WHERE embedding MATCH ? AND k = 32 ORDER BY distance")
    const fts = sqlite.prepare('SELECT rowid, rank FROM kb_chunks_fts WHERE kb_chunks_fts MATCH ? ORDER BY rank LIMIT 32')
    const plainVec = await medianMs(() => knn.all(Buffer.from(new Float32Array(next().vector).buffer)), 15, 2)
    const plainFts = await medianMs(() => fts.all(ftsQuery(next().text)!), 15, 2)
    const hybrid = await medianMs(() => {
      const query = next()
      return hybridSearch(repo, { kbIds: [kb.id], text: query.text, vectors: new Map([[kb.id, query.vector]]), topK: 8 })
    }, 15, 2)
    // How many of the exact top 10 the coarse-then-exact k-NN finds (quality, not speed).
    let overlap = 0
    for (const query of queries.slice(0, 10)) {
      const exact = new Set((knn.all(Buffer.from(new Float32Array(query.vector).buffer)) as { rowid: number }[]).slice(0, 10).map((r) => Number(r.rowid)))
      overlap += repo.nearest(kb.id, query.vector, 10).filter((r) => exact.has(r.chunkId)).length
    }
    console.log(`k-NN recall@10 against exact float search: ${(overlap / 100).toFixed(2)} (random vectors: the hardest case)`)
    report(`hybrid retrieval, ${CHUNKS / 1000}k chunks`, hybrid, 'plain sqlite-vec k-NN', plainVec, 'ms', 'median < 50 ms')
    report(`hybrid retrieval, ${CHUNKS / 1000}k chunks`, hybrid, 'plain FTS5 bm25', plainFts, 'ms')
    report('hybrid retrieval', hybrid, 'sum of both plain queries', plainVec + plainFts, 'ms')
  } finally {
    store.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

async function localWork(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sb-kb-bench-'))
  const src = mkdtempSync(join(tmpdir(), 'sb-kb-bench-src-'))
  const { store } = openStore({ dataDir, dailyBackupMs: 0 })
  try {
    for (let f = 0; f < 200; f++)
      writeFileSync(join(src, `doc-${f}.md`), Array.from({ length: 20 }, (_, s) => `## Section ${s}\n\n${sentence(120)}`).join('\n\n'))
    const { knowledge, hub } = headlessKnowledge(store, async () => instantRuntime(256))
    const kb = knowledge.create({ name: 'local', providerId: 'bench', modelId: 'instant' })
    const start = performance.now()
    await knowledge.addPaths(kb.id, [src])
    await knowledge.idle(kb.id)
    const ours = performance.now() - start
    const chunks = knowledge.files(kb.id).reduce((a, f) => a + f.chunksTotal, 0)
    // Baseline: the same rows written straight into a vec0 table and FTS5, nothing else.
    const sqlite = store.db.sqlite
    sqlite.exec('CREATE VIRTUAL TABLE bench_vec USING vec0(embedding float[256]); CREATE VIRTUAL TABLE bench_fts USING fts5(text)')
    const texts = (sqlite.prepare('SELECT text FROM kb_chunks').all() as { text: string }[]).map((r) => r.text)
    const b0 = performance.now()
    const insV = sqlite.prepare('INSERT INTO bench_vec (rowid, embedding) VALUES (?, ?)')
    const insF = sqlite.prepare('INSERT INTO bench_fts (rowid, text) VALUES (?, ?)')
    sqlite.transaction(() => texts.forEach((t, i) => (insV.run(BigInt(i + 1), Buffer.from(new Float32Array(cheapVector(t, 256)).buffer)), insF.run(i + 1, t))))()
    const bare = performance.now() - b0
    report(`local work per chunk (${chunks} chunks)`, ours / chunks, 'bare INSERT per chunk', bare / chunks, 'ms', '< 1 ms')
    const chunking = await medianMs(() => chunkText(texts.join('\n\n').slice(0, 100_000), { size: 1200, overlap: 150 }), 5, 1)
    console.log(`chunking 100,000 characters: ${fmt(chunking)}`)
    hub.close()
  } finally {
    store.close()
    rmSync(dataDir, { recursive: true, force: true })
    rmSync(src, { recursive: true, force: true })
  }
}

async function memory(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sb-kb-bench-'))
  const src = mkdtempSync(join(tmpdir(), 'sb-kb-bench-src-'))
  const { store } = openStore({ dataDir, dailyBackupMs: 0 })
  try {
    for (let f = 0; f < FILES; f++) {
      const sub = join(src, `d${f % 100}`)
      if (f < 100) mkdirSync(sub)
      writeFileSync(join(sub, `note-${f}.txt`), `${sentence(80)}\n\n${sentence(80)}`)
    }
    const { knowledge, hub } = headlessKnowledge(store, async () => instantRuntime(64))
    const kb = knowledge.create({ name: 'memory', providerId: 'bench', modelId: 'instant' })
    // A collected heap at each quarter of the files, so garbage does not pass for growth.
    v8.setFlagsFromString('--expose-gc')
    const gc = runInNewContext('gc') as () => void
    const heap = () => (gc(), process.memoryUsage().heapUsed / 1e6)
    const before = heap()
    const samples: [number, number][] = []
    let next = FILES / 4
    const timer = setInterval(() => {
      const done = knowledge.files(kb.id).filter((f) => f.status === 'Success').length
      if (done >= next) {
        samples.push([done, heap()])
        next += FILES / 4
      }
    }, 500)
    await knowledge.addPaths(kb.id, [src])
    await knowledge.idle(kb.id)
    clearInterval(timer)
    // Measured before the files list below is read: that list is the bench's, not the indexer's.
    const after = heap()
    const all = knowledge.files(kb.id)
    const indexed = all.filter((f) => f.status === 'Success').length
    const failed = all.filter((f) => f.status !== 'Success')
    if (failed.length) console.log(`${failed.length} not indexed, e.g. ${failed[0]!.name}: ${failed[0]!.status} ${failed[0]!.error ?? ''}`)
    samples.push([indexed, after])
    console.log(`indexing ${FILES.toLocaleString('en')} files (${indexed} indexed): heap ${before.toFixed(1)} MB before; ${samples.map(([n, mb]) => `${mb.toFixed(1)} MB at ${n}`).join(', ')}`)
    const first = samples[0]!
    const last = samples.at(-1)!
    console.log(`heap growth from ${first[0]} to ${last[0]} files: ${(last[1] / first[1]).toFixed(2)}×   goal: flat (≈ 1.0×)`)
    hub.close()
  } finally {
    store.close()
    rmSync(dataDir, { recursive: true, force: true })
    rmSync(src, { recursive: true, force: true })
  }
}

async function quality(): Promise<void> {
  for (const k of [5, 8]) {
    console.log(formatScores('naive embedder (letter counts)', k, await measureQuality(naiveVector, k)))
    console.log(formatScores('good embedder (content words, synonyms folded)', k, await measureQuality((t) => goodVector(t), k)))
  }
}

/** KB_BENCH_PARTS=quality,local,memory,retrieval picks parts (all by default). */
export default async function knowledgeBench(): Promise<void> {
  const parts = (process.env['KB_BENCH_PARTS'] ?? 'quality,local,memory,retrieval').split(',')
  if (parts.includes('quality')) await quality()
  if (parts.includes('local')) await localWork()
  if (parts.includes('memory')) await memory()
  if (parts.includes('retrieval')) await retrieval()
}
