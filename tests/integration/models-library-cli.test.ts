import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { afterEach, describe, expect, it } from 'vitest'
import { main } from '../../src/cli/main'
import type { CliIO } from '../../src/cli/command'
import type { DownloadSnapshot } from '../../src/shared/models-library/types'
import { startFakeHfHub, sha256, type FakeHub } from '../fixtures/fake-hf-hub/server'
import { startFakeOllamaRegistry, type FakeRegistry } from '../fixtures/fake-ollama-registry/server'
import { knownHeader, paddedModel } from '../fixtures/gguf-headers/write-gguf'

const MB = 1024 * 1024
const model = paddedModel(6 * MB, 21)

function io(env: NodeJS.ProcessEnv = {}, tty = false) {
  let out = ''
  let err = ''
  const stdout = Object.assign(new PassThrough(), { isTTY: tty, columns: 120 })
  const stderr = Object.assign(new PassThrough(), { isTTY: tty })
  stdout.on('data', (d: Buffer) => (out += d.toString()))
  stderr.on('data', (d: Buffer) => (err += d.toString()))
  const value: CliIO = { stdout, stderr, stdin: new PassThrough(), env }
  return { io: value, out: () => out, err: () => err }
}

let hub: FakeHub | undefined
let registry: FakeRegistry | undefined
afterEach(async () => {
  await hub?.close()
  await registry?.close()
  hub = undefined
  registry = undefined
})

const startHub = (faults: FakeHub['faults'] = {}) =>
  startFakeHfHub(
    [
      { id: 'acme/Tiny-GGUF', downloads: 10, likes: 2, license: 'mit', files: [{ path: 'tiny-Q4_K_M.gguf', content: model }] },
      { id: 'meta/Llama-3-8B-GGUF', downloads: 500, files: [{ path: 'llama-3-8b-Q4_K_M.gguf', content: knownHeader('llama-3-8b'), listedSize: 400_000_000_000 }] }
    ],
    { faults }
  )

describe('switchboard models search / files / pull hf: / pull ollama:', () => {
  it('models search lists hub repositories, the Ollama library and models on disk', async () => {
    hub = await startHub()
    const t = io({ SWITCHBOARD_DATA_DIR: mkdtempSync(join(tmpdir(), 'sb-cli-lib-')) })
    expect(await main(['models', 'search', 'gguf', '--hub', hub.url], t.io)).toBe(0)
    expect(t.out()).toMatch(/hf:meta\/Llama-3-8B-GGUF\s+hf\s+500 dl/)
    expect(t.out()).toMatch(/hf:acme\/Tiny-GGUF .*2 likes .*mit/)
    const j = io({ SWITCHBOARD_DATA_DIR: mkdtempSync(join(tmpdir(), 'sb-cli-lib-')) })
    expect(await main(['models', 'search', 'qwen', '--hub', hub.url, '--json'], j.io)).toBe(0)
    const parsed = JSON.parse(j.out()) as { entries: Array<{ source: string; id: string }> }
    expect(parsed.entries.filter((e) => e.source === 'ollama').map((e) => e.id)).toContain('qwen2.5:0.5b')
  })

  it('models files shows quantisations with the fit; pull refuses a model that does not fit unless --force', async () => {
    hub = await startHub()
    const dataDir = mkdtempSync(join(tmpdir(), 'sb-cli-lib-'))
    const f = io({ SWITCHBOARD_DATA_DIR: dataDir })
    expect(await main(['models', 'files', 'meta/Llama-3-8B-GGUF', '--hub', hub.url], f.io)).toBe(0)
    expect(f.out()).toMatch(/Q4_K_M .*does not fit/)
    const p = io({ SWITCHBOARD_DATA_DIR: dataDir })
    expect(await main(['pull', 'hf:meta/Llama-3-8B-GGUF:Q4_K_M', '--hub', hub.url], p.io)).toBe(1)
    expect(p.err()).toMatch(/ModelLibraryError|does not fit.*--force/)
  })

  it('pull hf:REPO:QUANT --json prints monotonic events ending verified on disk', async () => {
    hub = await startHub({ dropAt: [0.5] })
    const dataDir = mkdtempSync(join(tmpdir(), 'sb-cli-lib-'))
    const t = io({ SWITCHBOARD_DATA_DIR: dataDir })
    expect(await main(['pull', 'hf:acme/Tiny-GGUF:Q4_K_M', '--hub', hub.url, '--json'], t.io)).toBe(0)
    const events = t.out().trim().split('\n').map((l) => JSON.parse(l) as DownloadSnapshot)
    const last = events.at(-1)!
    expect(last.phase).toBe('success')
    expect(createHash('sha256').update(readFileSync(last.path!)).digest('hex')).toBe(sha256(model))
    for (let i = 1; i < events.length; i++) expect(events[i]!.fraction).toBeGreaterThanOrEqual(events[i - 1]!.fraction)
  })

  it('a pull killed mid-download resumes from its bytes when run again (never from 0 %)', async () => {
    hub = await startHub({ bytesPerSecond: 2 * MB })
    const dataDir = mkdtempSync(join(tmpdir(), 'sb-cli-lib-'))
    const dest = join(dataDir, 'models', 'hf', 'acme', 'Tiny-GGUF', 'tiny-Q4_K_M.gguf')
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'pull', 'hf:acme/Tiny-GGUF', '--hub', hub.url, '--json'], {
      env: { ...process.env, SWITCHBOARD_CLI_ENTRY: '1', SWITCHBOARD_DATA_DIR: dataDir },
      stdio: 'ignore'
    })
    const deadline = Date.now() + 60_000
    while ((existsSync(`${dest}.part`) ? statSync(`${dest}.part`).size : 0) < 2 * MB && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
    child.kill('SIGKILL')
    await new Promise((r) => child.once('exit', r))
    const kept = statSync(`${dest}.part`).size
    expect(kept).toBeGreaterThanOrEqual(2 * MB)
    hub.faults.bytesPerSecond = undefined
    const t = io({ SWITCHBOARD_DATA_DIR: dataDir })
    expect(await main(['pull', 'hf:acme/Tiny-GGUF', '--hub', hub.url, '--json'], t.io)).toBe(0)
    const events = t.out().trim().split('\n').map((l) => JSON.parse(l) as DownloadSnapshot)
    expect(events[0]!.completedBytes).toBeGreaterThanOrEqual(kept)
    expect(events.at(-1)!.resumedBytes).toBeGreaterThanOrEqual(kept)
    expect(createHash('sha256').update(readFileSync(dest)).digest('hex')).toBe(sha256(model))
  }, 120_000)

  it('pull ollama:NAME:TAG fetches from the registry without Ollama; an unknown name is a clear error', async () => {
    registry = await startFakeOllamaRegistry([{ name: 'tiny', tag: '1m', model }])
    const dataDir = mkdtempSync(join(tmpdir(), 'sb-cli-lib-'))
    const t = io({ SWITCHBOARD_DATA_DIR: dataDir })
    expect(await main(['pull', 'ollama:tiny:1m', '--registry', registry.url], t.io)).toBe(0)
    expect(t.out()).toMatch(/Downloaded ollama:tiny:1m: .* verified/)
    const bad = io({ SWITCHBOARD_DATA_DIR: dataDir })
    expect(await main(['pull', 'ollama:nosuch:7b', '--registry', registry.url], bad.io)).toBe(1)
    expect(bad.err()).toMatch(/"nosuch:7b" was not found in the Ollama library/)
  })
})
