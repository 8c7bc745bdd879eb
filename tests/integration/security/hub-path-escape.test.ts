import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative, resolve, sep } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { ModelsLibrary } from '../../../src/core/models-library/library-service'
import { startFakeHfHub, sha256, type FakeHub, type FakeRepo } from '../../fixtures/fake-hf-hub/server'
import { paddedModel } from '../../fixtures/gguf-headers/write-gguf'

// A hostile Hugging Face hub (or mirror) lists file names made to climb out of the models
// folder, and serves bytes for them wherever the client's URL parser sends the request. The
// real CLI and the library service must refuse each name before a byte is written, exit
// non-zero and name the file; a planted link inside the models folder must not carry a write
// out of it either.

const cli = resolve(import.meta.dirname, '../../../out/main/cli.js')
const payload = paddedModel(256 * 1024, 48)

const hostile: Array<{ id: string; names: string[] }> = [
  { id: 'evil/Middle-GGUF', names: ['x/../../../../../outside/esc-Q4_K_M.gguf'] },
  { id: 'evil/Start-GGUF', names: ['../../../../../esc-start-Q4_K_M.gguf'] },
  { id: 'evil/Sibling-GGUF', names: ['x/../../Other-GGUF/sib-Q4_K_M.gguf'] },
  { id: 'evil/Split-GGUF', names: ['x/../../../../../outside/esc-F16-00001-of-00002.gguf', 'x/../../../../../outside/esc-F16-00002-of-00002.gguf'] },
  { id: 'evil/Absolute-GGUF', names: ['/tmp/sb-abs-esc-Q4_K_M.gguf'] },
  { id: 'evil/Backslash-GGUF', names: ['..\\..\\..\\..\\..\\esc-bs-Q4_K_M.gguf'] },
  { id: 'evil/Nul-GGUF', names: ['esc-nul\u0000-Q4_K_M.gguf'] }
]

const repos = (): FakeRepo[] => [
  ...hostile.map((h) => ({ id: h.id, files: h.names.map((path, i) => ({ path, content: paddedModel(128 * 1024, 60 + i) })) })),
  { id: 'evil/Linked-GGUF', files: [{ path: 'linked-Q4_K_M.gguf', content: payload }] },
  { id: 'acme/Fine-GGUF', files: [{ path: 'sub/fine-Q4_K_M.gguf', content: payload }] }
]

let hub: FakeHub | undefined
const libraries: ModelsLibrary[] = []
afterEach(async () => {
  for (const l of libraries.splice(0)) await l.close()
  await hub?.close()
  hub = undefined
})

/** Every file under `root` (links listed, not followed). */
function files(root: string): string[] {
  const out: string[] = []
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name)
      if (e.isDirectory()) walk(p)
      else out.push(relative(root, p))
    }
  }
  walk(root)
  return out.sort()
}

/** A temp tree: the data folder inside it, and a folder beside it an attacker would like to write to. */
function tree() {
  const root = mkdtempSync(join(tmpdir(), 'sb-hub-escape-'))
  const dataDir = join(root, 'data')
  const outside = join(root, 'outside')
  mkdirSync(dataDir, { recursive: true })
  mkdirSync(outside)
  writeFileSync(join(outside, 'keep.txt'), 'the user file')
  return { root, dataDir, outside }
}

/** What was written outside `<data>/models` (the links' targets included). */
const writtenOutsideModels = (root: string, before: string[]) => files(root).filter((f) => !f.startsWith(`data${sep}models${sep}`) && !before.includes(f))

function runCli(args: string[], dataDir: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [cli, ...args], { env: { ...process.env, SWITCHBOARD_DATA_DIR: dataDir, HF_TOKEN: '' }, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    child.once('exit', (code) => done({ code, stdout, stderr }))
  })
}

describe('a hub file name never writes outside the models folder', () => {
  it.each(hostile)('switchboard pull hf:$id refuses $names.0, exits non-zero and writes nothing outside <data>/models', async ({ id, names }) => {
    hub = await startFakeHfHub(repos(), { matchByName: true })
    const t = tree()
    const before = files(t.root)
    const result = await runCli(['pull', `hf:${id}`, '--hub', hub.url, '--force'], t.dataDir)
    expect(result.code).not.toBe(0)
    expect(writtenOutsideModels(t.root, before)).toEqual([])
    expect(existsSync('/tmp/sb-abs-esc-Q4_K_M.gguf')).toBe(false)
    // The message names the refused file (as the hub spelt it, control characters shown escaped).
    expect(result.stderr).toContain(JSON.stringify(names[0]!).slice(1, -1))
    expect(result.stderr).toMatch(/refused/i)
  }, 30_000)

  it('a link planted inside the models folder that points outside carries no write out of it', async () => {
    hub = await startFakeHfHub(repos(), { matchByName: true })
    const t = tree()
    mkdirSync(join(t.dataDir, 'models', 'hf', 'evil'), { recursive: true })
    symlinkSync(t.outside, join(t.dataDir, 'models', 'hf', 'evil', 'Linked-GGUF'))
    const before = files(t.root)
    const result = await runCli(['pull', 'hf:evil/Linked-GGUF', '--hub', hub.url], t.dataDir)
    expect(result.code).not.toBe(0)
    expect(readdirSync(t.outside)).toEqual(['keep.txt'])
    expect(writtenOutsideModels(t.root, before)).toEqual([])
    expect(result.stderr).toMatch(/linked-Q4_K_M\.gguf/)
    expect(result.stderr).toMatch(/outside the models folder/i)
  }, 30_000)

  it('a link planted at the partial file\'s name carries no byte out of the models folder', async () => {
    hub = await startFakeHfHub(repos(), { matchByName: true })
    const t = tree()
    const dir = join(t.dataDir, 'models', 'hf', 'acme', 'Fine-GGUF', 'sub')
    mkdirSync(dir, { recursive: true })
    symlinkSync(join(t.outside, 'keep.txt'), join(dir, 'fine-Q4_K_M.gguf.part'))
    const result = await runCli(['pull', 'hf:acme/Fine-GGUF', '--hub', hub.url], t.dataDir)
    expect(result.code).not.toBe(0)
    expect(result.stderr).toMatch(/fine-Q4_K_M\.gguf\.part was refused: it is a link/)
    expect(readFileSync(join(t.outside, 'keep.txt'), 'utf8')).toBe('the user file')
  }, 30_000)

  it('control: a normal name (in a sub-folder of the repository) downloads, verified, inside the models folder', async () => {
    hub = await startFakeHfHub(repos(), { matchByName: true })
    const t = tree()
    const before = files(t.root)
    const result = await runCli(['pull', 'hf:acme/Fine-GGUF', '--hub', hub.url], t.dataDir)
    expect(result.stderr).not.toMatch(/refused/i)
    expect(result.code).toBe(0)
    const dest = join(t.dataDir, 'models', 'hf', 'acme', 'Fine-GGUF', 'sub', 'fine-Q4_K_M.gguf')
    expect(sha256(readFileSync(dest))).toBe(sha256(payload))
    expect(writtenOutsideModels(t.root, before)).toEqual([])
  }, 30_000)

  it('the library service refuses the same names before anything is fetched', async () => {
    hub = await startFakeHfHub(repos(), { matchByName: true })
    for (const { id, names } of hostile) {
      const t = tree()
      const lib = new ModelsLibrary({ dataDir: t.dataDir, folders: { dataDir: t.dataDir }, memory: () => ({ freeRamBytes: 16e9 }), hubEndpoint: hub.url, retryDelayMs: 10 })
      libraries.push(lib)
      const before = files(t.root)
      const served = hub.stats.bytesSent
      await expect(lib.pull(`hf:${id}`, { force: true })).rejects.toThrow(/refused/i)
      expect(hub.stats.bytesSent).toBe(served)
      expect(writtenOutsideModels(t.root, before)).toEqual([])
      expect(lib.downloads.list()).toEqual([])
      expect(names.length).toBeGreaterThan(0)
    }
  })

  it('an unfinished-download record whose file points outside the models folder is refused at restart, and nothing is written there', async () => {
    hub = await startFakeHfHub(repos(), { matchByName: true })
    const t = tree()
    const target = join(t.outside, 'planted.gguf')
    const record = {
      id: '00000000-0000-4000-8000-000000000001',
      userPaused: false,
      plan: {
        ref: 'hf:acme/Fine-GGUF:sub/fine-Q4_K_M.gguf',
        source: { kind: 'hf', repo: 'acme/Fine-GGUF', file: 'sub/fine-Q4_K_M.gguf' },
        files: [{ url: `${hub.url}/acme/Fine-GGUF/resolve/main/sub/fine-Q4_K_M.gguf`, dest: target, sizeBytes: payload.length, sha256: sha256(payload) }],
        mainPath: target,
        finalize: { path: join(t.outside, 'manifest'), content: '{}' }
      }
    }
    mkdirSync(join(t.dataDir, 'models', 'downloads'), { recursive: true })
    writeFileSync(join(t.dataDir, 'models', 'downloads', `${record.id}.json`), JSON.stringify(record))
    const before = files(t.root)
    const lib = new ModelsLibrary({ dataDir: t.dataDir, folders: { dataDir: t.dataDir }, memory: () => ({ freeRamBytes: 16e9 }), hubEndpoint: hub.url, retryDelayMs: 10 })
    libraries.push(lib)
    const [restored] = await lib.downloads.restore()
    const final = await lib.downloads.wait(restored!.id)
    expect(final.phase).toBe('error')
    expect(final.error?.message).toMatch(/outside the models folder/)
    expect(writtenOutsideModels(t.root, before)).toEqual([])
    expect(readdirSync(t.outside)).toEqual(['keep.txt'])
  })
})
