import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { KnowledgeRepository } from '../../../src/core/store/repositories/knowledge'
import { openStore } from '../../../src/core/store'
import { startFakeEmbeddingServer, type FakeEmbeddingServer } from '../../fixtures/fake-embeddings'
import { writeTree } from './helpers'

// The crash test, extended to indexing: a real child process indexes a folder against the fake
// embedding server and is SIGKILLed at random moments. After every kill the database is intact,
// no acknowledged vector is lost, nothing half-indexed is searchable; at the end every chunk is
// embedded (none skipped) and none was sent twice except a batch in flight at a kill.
const ROUNDS = 5
const BATCH = 4
const dir = mkdtempSync(join(tmpdir(), 'sb-kb-crash-'))
let fake: FakeEmbeddingServer
let folder: string

beforeAll(async () => {
  fake = await startFakeEmbeddingServer()
  fake.delay(8)
  const files: Record<string, string> = {}
  for (let f = 0; f < 12; f++) {
    const paragraphs = Array.from({ length: 6 }, (_, p) =>
      Array.from({ length: 28 }, (_, w) => `f${f}p${p}w${w}`).join(' ')
    )
    files[`doc-${f}.md`] = paragraphs.join('\n\n')
  }
  folder = writeTree(files)
})
afterAll(async () => {
  await fake.close()
  rmSync(dir, { recursive: true, force: true })
})

type Ack = { kind: 'ready' } | { kind: 'idle' } | { kind: 'batch'; done: Record<string, number> }

function run(killAfterMs: number | null): Promise<{ acks: Ack[]; killed: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'index-crash-child.ts'), dir, fake.url, folder], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    let timer: NodeJS.Timeout | undefined
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      if (killAfterMs !== null && !timer && out.includes('"ready"')) timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs)
    })
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()))
    child.on('exit', (code, signal) => {
      clearTimeout(timer)
      if (signal !== 'SIGKILL' && code !== 0) return reject(new Error(`child failed (${code}): ${err}`))
      const lines = out.split('\n').slice(0, -1)
      resolve({ acks: lines.map((l) => JSON.parse(l) as Ack), killed: signal === 'SIGKILL' })
    })
  })
}

function check(round: string, acked: Map<string, number>) {
  const { store } = openStore({ dataDir: dir, dailyBackupMs: 0 })
  try {
    expect(store.integrityCheck(), round).toEqual(['ok'])
    const repo = new KnowledgeRepository(store.db)
    const [kb] = repo.list()
    if (!kb) return { files: [], total: 0 }
    const files = repo.files(kb.id)
    for (const f of files) expect(f.chunksDone, `${round}: ${f.name} lost acknowledged vectors`).toBeGreaterThanOrEqual(acked.get(f.id) ?? 0)
    const published = files.filter((f) => f.status === 'Success').reduce((a, f) => a + f.chunksTotal, 0)
    // Searchable = exactly the chunks of finished files: nothing half-indexed.
    expect(repo.searchableCounts(kb.id), round).toEqual({ vectors: published, text: published })
    return { files, total: files.reduce((a, f) => a + f.chunksTotal, 0), chunks: store.db.sqlite.prepare('SELECT text FROM kb_chunks').all() as { text: string }[] }
  } finally {
    store.close()
  }
}

describe('crash safety of indexing', () => {
  it(`a child indexing a folder, SIGKILLed ${ROUNDS} times, resumes without losing or repeating work`, async () => {
    const acked = new Map<string, number>()
    let kills = 0
    for (let round = 0; round < ROUNDS; round++) {
      const { acks, killed } = await run(30 + Math.floor(Math.random() * 250))
      if (killed) kills++
      for (const a of acks) if (a.kind === 'batch') for (const [id, n] of Object.entries(a.done)) acked.set(id, Math.max(acked.get(id) ?? 0, n))
      check(`round ${round}`, acked)
      if (!killed) break
    }
    expect(kills).toBeGreaterThan(0)
    await run(null)
    const final = check('final', acked)
    expect(final.files.map((f) => f.status)).toEqual(final.files.map(() => 'Success'))
    expect(final.total).toBe(12 * 6)

    // None skipped, none embedded twice except the one batch in flight at each kill.
    const sent = new Map<string, number>()
    for (const input of fake.inputs) sent.set(input, (sent.get(input) ?? 0) + 1)
    let repeats = 0
    for (const { text } of final.chunks!) {
      const n = sent.get(text) ?? 0
      expect(n, `chunk never embedded: ${text.slice(0, 30)}`).toBeGreaterThan(0)
      repeats += n - 1
    }
    expect(repeats).toBeLessThanOrEqual(kills * BATCH)
  }, 120_000)
})
