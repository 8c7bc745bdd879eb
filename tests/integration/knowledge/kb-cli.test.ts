import { existsSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable, Writable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CliIO } from '../../../src/cli/command'
import { main } from '../../../src/cli/main'
import { startFakeEmbeddingServer, type FakeEmbeddingServer } from '../../fixtures/fake-embeddings'
import { TOPICS, writeTree } from './helpers'
import { loadProviderModels } from '../../../src/shared/catalogue/loader'
import type { UsageSummaryRow } from '../../../src/shared/data/usage-log'

class Capture extends Writable {
  text = ''
  override _write(chunk: Buffer | string, _enc: BufferEncoding, done: () => void) {
    this.text += chunk.toString()
    done()
  }
}

let fake: FakeEmbeddingServer
const dataDir = mkdtempSync(join(tmpdir(), 'sb-kb-cli-'))
const env = { OPENAI_API_KEY: 'sk-kb-cli-0123456789', SWITCHBOARD_DATA_DIR: dataDir }

async function run(argv: string[]) {
  const stdout = new Capture()
  const stderr = new Capture()
  const io: CliIO = { stdout, stderr, stdin: Object.assign(Readable.from([]), { isTTY: true }), env }
  const code = await main(argv, io)
  return { code, stdout: stdout.text, stderr: stderr.text }
}
const cli = (args: string[]) => run(['kb', ...args, '--base-url', fake.url])

beforeAll(async () => {
  fake = await startFakeEmbeddingServer()
})
afterAll(() => fake.close())

describe('switchboard usage', () => {
  it('a data folder with nothing recorded is an empty answer, and the folder is not made for it', async () => {
    const missing = join(mkdtempSync(join(tmpdir(), 'sb-usage-')), 'none')
    expect(await run(['usage', '--json', '--data-dir', missing])).toEqual({ code: 0, stdout: '[]\n', stderr: '' })
    expect(existsSync(missing)).toBe(false)
    const wrong = await run(['usage', '--by', 'colour', '--data-dir', missing])
    expect(wrong.code).toBe(2)
    expect(wrong.stderr).toContain('--by kind|scene|provider|model|day')
  })
})

describe('switchboard kb (headless, same core)', () => {
  it('create, add a folder, search and eval', async () => {
    const created = await cli(['create', 'Handbook', '--model', 'openai/text-embedding-3-small'])
    expect(created.code).toBe(0)
    expect(created.stdout).toMatch(/^[0-9a-z]{16}\n$/)

    const added = await cli(['add', 'Handbook', writeTree(TOPICS), '--exclude', 'code/**'])
    expect(added.stderr).toContain('11 file(s) added')
    expect(added.stdout.trim().split('\n')).toHaveLength(11)
    expect(added.stdout).toMatch(/^Success wifi\.txt$/m)
    expect(added.code).toBe(0)
    // The run's embeddings are in the usage log, priced from the catalogue, and the run says what they cost.
    const billed = fake.inputs.join(' ').split(/\s+/).length
    const rate = (await loadProviderModels('openai')).find((m) => m.id === 'text-embedding-3-small')!.pricing!.units.find((u) => u.name === 'textInput') as { rate: number }
    const used = await run(['usage', '--json'])
    expect(used.code).toBe(0)
    const embedding = (JSON.parse(used.stdout) as UsageSummaryRow[]).find((r) => r.key === 'embedding')!
    expect(embedding.totalTokens).toBe(billed)
    expect(embedding.cost).toBeCloseTo((billed * rate.rate) / 1_000_000, 12)
    expect(added.stderr).toContain(`Embeddings: ${billed} tokens in ${embedding.calls} call(s), ${embedding.cost.toFixed(6)} USD`)
    expect((await run(['usage'])).stdout).toMatch(new RegExp(`^embedding +${embedding.calls} +${billed} `, 'm'))

    const found = await cli(['search', 'Handbook', 'how', 'tall', 'is', 'Olympus', 'Mons', '--top', '2'])
    expect(found.code).toBe(0)
    expect(found.stdout.split('\n')[0]).toMatch(/^\[1\] mars\.md › Mars {2}\d+–\d+$/)

    const listed = await cli(['list'])
    expect(listed.stdout).toMatch(/Handbook {2}openai\/text-embedding-3-small {2}11 files, 11 chunks/)

    const dataset = join(mkdtempSync(join(tmpdir(), 'sb-kb-ds-')), 'questions.csv')
    writeFileSync(dataset, 'question,referenceFiles\nWhat is the wifi password?,wifi.txt\nWhere is visitor parking?,parking.md\n,cats.md\n')
    const evaluated = await cli(['eval', 'Handbook', dataset, '--k', '3'])
    expect(evaluated.stderr).toContain('line 4: question: question is required (skipped)')
    expect(evaluated.stdout).toBe('Success: 2 questions, recall@3 100.0%, MRR 1.000\n')
    expect(evaluated.code).toBe(0)
  })

  it('a dataset with a wrong field name is refused with the fields it expects, not run as if it had none', async () => {
    const dataset = join(mkdtempSync(join(tmpdir(), 'sb-kb-ds-')), 'questions.jsonl')
    writeFileSync(dataset, '{"question":"What is the wifi password?","reference_files":["wifi.txt"]}\n')
    const r = await cli(['eval', 'Handbook', dataset])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/unknown field "reference_files" \(did you mean "referenceFiles"\?\); a record has question, ideal, referenceFiles/)
    expect(r.stdout).toBe('')
    const help = await cli(['--help'])
    expect(help.stdout + help.stderr).toMatch(/question \(required\), ideal, referenceFiles/)
  })

  it('an unknown base is a clear error', async () => {
    const r = await cli(['search', 'Nope', 'x'])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/No knowledge base is called "Nope"/)
  })
})

describe('limits', () => {
  it('a file over the size limit is refused with its size and the limit', async () => {
    const { openStore } = await import('../../../src/core/store')
    const { headlessKnowledge } = await import('../../../src/core/knowledge/headless')
    const dir = mkdtempSync(join(tmpdir(), 'sb-kb-limit-'))
    const { store } = openStore({ dataDir: dir, dailyBackupMs: 0 })
    try {
      const { knowledge } = headlessKnowledge(store, async () => ({ id: 'none' }))
      ;(knowledge as unknown as { deps: { maxFileBytes: number } }).deps.maxFileBytes = 2_000_000
      const kb = knowledge.create({ name: 'limit', providerId: 'openai', modelId: 'x' })
      const big = join(writeTree({}), 'big.pdf')
      writeFileSync(big, Buffer.alloc(3_000_000, 32))
      const file = await knowledge.addFile(kb.id, big)
      expect(file).toMatchObject({ status: 'Error', path: null, error: 'The file is 3 MB; the largest a knowledge base reads is 2 MB.' })
    } finally {
      store.close()
    }
  })
})
