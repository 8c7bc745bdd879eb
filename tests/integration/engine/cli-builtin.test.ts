import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeTinyLlamaGguf } from '../../fixtures/gguf/tiny-llama'
import { MemoryBackend } from '../../../src/core/secrets'
import { startTestCore } from '../test-core'

const run = promisify(execFile)

/** The real binary, with a home and data folder of its own (no Ollama store of the machine's). */
describe('switchboard chat builtin/… and switchboard builtin', () => {
  let dir: string
  let env: NodeJS.ProcessEnv
  let file: string
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sb-cli-engine-'))
    const data = join(dir, 'data')
    mkdirSync(join(data, 'models'), { recursive: true })
    writeTinyLlamaGguf(join(data, 'models', 'tiny.gguf'))
    file = join(dir, 'elsewhere', 'direct.gguf')
    mkdirSync(join(dir, 'elsewhere'))
    writeTinyLlamaGguf(file, { seed: 5 })
    env = { ...process.env, HOME: dir, XDG_CONFIG_HOME: join(dir, '.config'), SWITCHBOARD_DATA_DIR: data, OLLAMA_MODELS: join(dir, 'no-ollama') }
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const cli = (...args: string[]) => run(process.execPath, ['bin/switchboard.mjs', ...args], { env, cwd: process.cwd() })

  it('chats with a model found in the data folder, stops at --max-tokens, and exits (the engine process goes with it)', async () => {
    const { stdout } = await cli('chat', 'builtin/tiny', '--max-tokens', '12', '--temperature', '0', 'Hello')
    expect(stdout.trim().length).toBeGreaterThan(0)
    expect(stdout).toMatch(/^[\x20-\x7e]+\n$/)
  }, 60_000)

  it('--json streams events with real usage and the engine speed', async () => {
    const { stdout } = await cli('chat', 'builtin/tiny', '--max-tokens', '10', '--json', 'Hello')
    const events = stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; data: unknown })
    expect(events.find((e) => e.type === 'usage')?.data).toMatchObject({ totalOutputTokens: 10 })
    expect(events.find((e) => e.type === 'stop')?.data).toBe('length')
    expect((events.at(-1)!.data as { tps: number }).tps).toBeGreaterThan(0)
    // Speed from the engine: tokens over generation time, not chunks over arrival jitter.
    expect((events.at(-1)!.data as { tps: number }).tps).toBeLessThan(5000)
  }, 60_000)

  it('runs a .gguf by its absolute path (builtin/ABSOLUTE/PATH.gguf)', async () => {
    const { stdout } = await cli('chat', `builtin${file}`, '--max-tokens', '8', 'Hi')
    expect(stdout.trim().length).toBeGreaterThan(0)
  }, 60_000)

  it('an unknown model exits 1 with the reason', async () => {
    const failed = await cli('chat', 'builtin/missing', '--max-tokens', '8', 'Hi').catch((e: { code: number; stderr: string }) => e)
    expect((failed as { code: number }).code).toBe(1)
    expect((failed as { stderr: string }).stderr).toMatch(/error: ModelNotFound: .*Models found: tiny/)
  }, 30_000)

  it('builtin list shows the model with context and memory; builtin load reports real figures', async () => {
    const list = await cli('builtin', 'list')
    expect(list.stdout).toMatch(/NAME\s+SOURCE\s+SIZE\s+CONTEXT\s+MEMORY/)
    expect(list.stdout).toMatch(/tiny\s+library\s+[\d.]+ KB\s+2,048\s+[\d.]+ MB/)
    const load = await cli('builtin', 'load', 'tiny', '--json')
    const ps = JSON.parse(load.stdout) as { rssBytes: number; models: Array<{ modelId: string; contextSize: number }> }
    expect(ps.models).toMatchObject([{ modelId: 'tiny', contextSize: 2048 }])
    expect(ps.rssBytes).toBeGreaterThan(1_000_000)
  }, 60_000)

  it('with no app on the data folder, builtin ps says the command\'s engine is its own', async () => {
    const ps = await cli('builtin', 'ps')
    expect(ps.stdout).toMatch(/No app is running on this data folder/)
  }, 30_000)

  it('with the app running on the data folder, builtin ps shows what the app\'s engine has loaded, and unload says it cannot act on it', async () => {
    const { core, client, state } = await startTestCore('sb-cli-engine-', { dataDir: env['SWITCHBOARD_DATA_DIR']!, secrets: { backend: new MemoryBackend() } })
    try {
      expect(state.phase).toBe('ready')
      expect((await client.call('engine.load', { model: 'tiny' })).ok).toBe(true)
      const ps = await cli('builtin', 'ps')
      expect(ps.stdout).toContain(`The app on this data folder (a test, process ${process.pid}) has loaded:`)
      expect(ps.stdout).toMatch(/tiny\s+2,048/)
      expect(ps.stdout).toMatch(/cannot load or unload models in the app's engine/)
      const json = JSON.parse((await cli('builtin', 'ps', '--json')).stdout) as { models: unknown[]; app?: { pid: number; models: Array<{ modelId: string }> } }
      expect(json.models).toEqual([])
      expect(json.app).toMatchObject({ pid: process.pid, models: [{ modelId: 'tiny' }] })
      const unload = await cli('builtin', 'unload', 'tiny').catch((e: { code: number; stderr: string }) => e)
      expect((unload as { code: number }).code).toBe(1)
      expect((unload as { stderr: string }).stderr).toMatch(/tiny is loaded in the app's engine \(a test, process \d+\), not in this command's; unload it on the app's Local models page/)
      const load = await cli('builtin', 'load', 'tiny')
      expect(load.stderr).toMatch(/loaded in this command's own engine, which stops when the command ends; the app on this data folder \(a test, process \d+\) is not affected/)
      // The app unloads it: the CLI sees that at once.
      expect((await client.call('engine.unload', { model: 'tiny' })).ok).toBe(true)
      expect((await cli('builtin', 'ps')).stdout).toContain('has no model loaded')
    } finally {
      await core.close()
    }
    // The app is gone: what it left is not shown as loaded.
    expect((await cli('builtin', 'ps')).stdout).toMatch(/No app is running on this data folder/)
  }, 120_000)
})
