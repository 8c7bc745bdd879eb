import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chatChunks, startFakeOpenAI, type FakeOpenAI } from '../../fixtures/fake-openai/index'
import { startFakeToolProvider, type FakeToolProvider } from '../../fixtures/fake-tool-provider'
import { openStore } from '../../../src/core/store'
import { FILESYSTEM } from '../tools/helpers'
import { cli } from './cli-run'

// Issue 52: the CLI's model calls go through the caller the app makes (createModelCaller), so
// each one is priced and written to the data folder's usage log: `switchboard usage` shows them.

let fake: FakeOpenAI
let tools: FakeToolProvider
const dirs: string[] = []
beforeAll(async () => {
  fake = await startFakeOpenAI()
  tools = await startFakeToolProvider((turn) => {
    const read = turn.tools.find((n) => n.endsWith('__read_text_file'))
    if (!turn.results.length && read) return { calls: [{ name: read, args: { path: join(folder, 'todo.txt') } }] }
    return { text: `Result: ${turn.results.map((r) => r.content).join(' ')}` }
  })
})
afterAll(async () => {
  await fake.close()
  await tools.close()
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})
let folder = ''


/** A data folder the app has opened before (it has a database). */
const fresh = () => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-cli-usage-'))
  dirs.push(dir)
  openStore({ dataDir: dir, dailyBackupMs: 0 }).store.close()
  return dir
}

const usageRows = async (dataDir: string, by: string) => JSON.parse((await cli(['usage', '--by', by, '--json', '--data-dir', dataDir])).stdout) as { key: string; calls: number; totalTokens: number }[]

describe('a CLI chat writes its usage rows', () => {
  it('switchboard chat: one row, by provider and by kind', async () => {
    const dataDir = fresh()
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['Hello']) })
    const r = await cli(['chat', 'openai/gpt-4o-mini', '--base-url', fake.url, '--data-dir', dataDir, 'hi'])
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('Hello\n')
    expect(await usageRows(dataDir, 'provider')).toMatchObject([{ key: 'openai', calls: 1 }])
    expect(await usageRows(dataDir, 'kind')).toMatchObject([{ key: 'chat', calls: 1 }])
  })

  it('switchboard chat --tool-server: the tool loop’s reply is logged as the app logs it', { timeout: 60_000 }, async () => {
    const dataDir = fresh()
    folder = realpathSync(mkdtempSync(join(tmpdir(), 'sb-cli-usage-fs-')))
    dirs.push(folder)
    writeFileSync(join(folder, 'todo.txt'), 'buy milk')
    const r = await cli(['chat', 'openai/gpt-4o-mini', '--base-url', `${tools.origin}/v1`, '--data-dir', dataDir, '--tool-server', `${process.execPath} ${FILESYSTEM} ${folder}`, '--yes', 'What is on my todo list?'])
    expect(r.stdout).toContain('Result: buy milk')
    expect(r.code).toBe(0)
    expect(await usageRows(dataDir, 'kind')).toMatchObject([{ key: 'chat', calls: 1 }])
  })

  it('switchboard embed: one row of kind embedding, priced by its tokens', async () => {
    const dataDir = fresh()
    fake.enqueue('/embeddings', { kind: 'json', body: { object: 'list', data: [{ object: 'embedding', index: 0, embedding: [0.5, -0.5] }], model: 'text-embedding-3-small', usage: { prompt_tokens: 3, total_tokens: 3 } } })
    const r = await cli(['embed', 'openai/text-embedding-3-small', '--base-url', fake.url, '--data-dir', dataDir, 'hello there'])
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('[0.5,-0.5]\n')
    expect(await usageRows(dataDir, 'kind')).toMatchObject([{ key: 'embedding', calls: 1, totalTokens: 3 }])
    expect(await usageRows(dataDir, 'scene')).toMatchObject([{ key: 'Command Line', calls: 1 }])
  })

  it('a data folder without a database gets none made for the log', async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'sb-cli-usage-none-')), 'data')
    dirs.push(dirname(dataDir))
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['Hello']) })
    expect((await cli(['chat', 'openai/gpt-4o-mini', '--base-url', fake.url, '--data-dir', dataDir, 'hi'])).code).toBe(0)
    expect(existsSync(dataDir)).toBe(false)
  })
})
