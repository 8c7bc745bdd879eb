import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { open } from 'node:fs/promises'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ModelsLibrary } from '../../src/core/models-library/library-service'
import type { DownloadSnapshot } from '../../src/shared/models-library/types'
import { startFakeHfHub, sha256, type FakeHub, type FakeRepo } from '../fixtures/fake-hf-hub/server'
import { startFakeOllamaRegistry, type FakeRegistry } from '../fixtures/fake-ollama-registry/server'
import { knownHeader, paddedModel } from '../fixtures/gguf-headers/write-gguf'
import { MIN_DEFAULT_CONTEXT } from '../../src/core/gguf/fit-estimate'

const MB = 1024 * 1024
const model = paddedModel(4 * MB, 7)
const q8 = paddedModel(6 * MB, 8)
const part1 = paddedModel(2 * MB, 9)
const part2 = paddedModel(1 * MB, 10)

const repos = (): FakeRepo[] => [
  {
    id: 'acme/Tiny-Chat-GGUF',
    downloads: 1234,
    likes: 56,
    license: 'apache-2.0',
    files: [
      { path: 'README.md', content: Buffer.from('# tiny'), plain: true },
      { path: 'tiny-chat-Q4_K_M.gguf', content: model },
      { path: 'tiny-chat-Q8_0.gguf', content: q8 },
      { path: 'split/tiny-chat-F16-00001-of-00002.gguf', content: part1 },
      { path: 'split/tiny-chat-F16-00002-of-00002.gguf', content: part2 }
    ]
  },
  { id: 'meta/Llama-3-8B-GGUF', downloads: 99999, gated: 'manual', license: 'llama3', files: [{ path: 'llama-3-8b-Q4_K_M.gguf', content: knownHeader('llama-3-8b'), listedSize: 4_920_000_000 }] },
  { id: 'acme/Gated-Tiny-GGUF', gated: 'auto', files: [{ path: 'gated-Q4_K_M.gguf', content: model }] }
]

let hub: FakeHub | undefined
let registry: FakeRegistry | undefined
const libraries: ModelsLibrary[] = []
afterEach(async () => {
  for (const l of libraries.splice(0)) await l.close()
  await hub?.close()
  await registry?.close()
  hub = undefined
  registry = undefined
})

function library(dataDir = mkdtempSync(join(tmpdir(), 'sb-lib-')), extra: Partial<ConstructorParameters<typeof ModelsLibrary>[0]> = {}) {
  const lib = new ModelsLibrary({
    dataDir,
    folders: { dataDir },
    memory: () => ({ freeRamBytes: 16e9 }),
    retryDelayMs: 10,
    throttleMs: 20,
    ...extra
  })
  libraries.push(lib)
  return lib
}

async function withHub(faults: FakeHub['faults'] = {}) {
  hub = await startFakeHfHub(repos(), { faults })
  const lib = library()
  await lib.setSettings({ hubEndpoint: hub.url })
  return lib
}

async function follow(lib: ModelsLibrary, id: string): Promise<DownloadSnapshot[]> {
  const seen: DownloadSnapshot[] = []
  for await (const s of lib.downloads.watch(id)) seen.push(s)
  return seen
}

const fileSha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex')

function expectMonotonic(seen: DownloadSnapshot[]) {
  for (let i = 1; i < seen.length; i++) {
    expect(seen[i]!.fraction).toBeGreaterThanOrEqual(seen[i - 1]!.fraction)
    expect(seen[i]!.completedBytes).toBeGreaterThanOrEqual(seen[i - 1]!.completedBytes)
  }
}

describe('model library: search and fit', () => {
  it('searches the hub for GGUF repositories (downloads, likes, license, gated) beside the Ollama library', async () => {
    const lib = await withHub()
    const { entries, errors } = await lib.search('gguf')
    expect(errors).toEqual([])
    const hf = entries.filter((e) => e.source === 'hf')
    expect(hf.map((e) => e.id)).toEqual(['meta/Llama-3-8B-GGUF', 'acme/Tiny-Chat-GGUF', 'acme/Gated-Tiny-GGUF'])
    expect(hf[0]).toMatchObject({ downloads: 99999, license: 'llama3', gated: 'manual' })
    expect(hf[1]).toMatchObject({ downloads: 1234, likes: 56, license: 'apache-2.0', gated: false })
    expect(hub!.stats.api[0]).toMatch(/filter=gguf/)
    expect((await lib.search('llama3.2')).entries.filter((e) => e.source === 'ollama').map((e) => e.id)).toContain('llama3.2:1b')
  })

  it('lists quantisations with sizes, a split model as one, and the fit read from the remote header', async () => {
    const lib = await withHub()
    const details = await lib.repo('acme/Tiny-Chat-GGUF')
    expect(details.shape).toMatchObject({ architecture: 'llama', blockCount: 2, contextLength: 2048 })
    expect(details.files.map((f) => [f.path, f.quant, f.sizeBytes, f.parts])).toEqual([
      ['split/tiny-chat-F16-00001-of-00002.gguf', 'F16', part1.length + part2.length, 2],
      ['tiny-chat-Q4_K_M.gguf', 'Q4_K_M', model.length, 1],
      ['tiny-chat-Q8_0.gguf', 'Q8_0', q8.length, 1]
    ])
    expect(details.files.every((f) => f.fit?.verdict === 'fits')).toBe(true)
    expect(details.files.find((f) => f.recommended)?.quant).toBe('Q8_0')
    expect(details.files[1]!.sha256).toBe(sha256(model))
  })

  it('refuses a model that does not fit with the figures, and downloads it anyway when forced', async () => {
    hub = await startFakeHfHub(repos())
    const lib = library(undefined, { memory: () => ({ freeRamBytes: 4e9 }), hfToken: async () => hub!.validToken, diskSpace: async () => 1e12 })
    await lib.setSettings({ hubEndpoint: hub.url })
    await expect(lib.pull('hf:meta/Llama-3-8B-GGUF:Q4_K_M')).rejects.toThrow(/does not fit.*--force/)
    const details = await lib.repo('meta/Llama-3-8B-GGUF')
    // Judged at the smallest context the engine would give it: it does not fit even there.
    expect(details.files[0]!.fit).toMatchObject({ verdict: 'doesNotFit', contextTokens: MIN_DEFAULT_CONTEXT })
    const forced = await lib.pull('hf:meta/Llama-3-8B-GGUF:Q4_K_M', { force: true })
    expect(forced.snapshot.ref).toBe('hf:meta/Llama-3-8B-GGUF:llama-3-8b-Q4_K_M.gguf')
    await lib.downloads.cancel(forced.snapshot.id)
  })
})

describe('model library: downloads that never start over', () => {
  it('downloads a quantisation, verified, with one monotonic progress', async () => {
    const lib = await withHub()
    const { snapshot } = await lib.pull('hf:acme/Tiny-Chat-GGUF:Q4_K_M')
    const seen = await follow(lib, snapshot.id)
    const last = seen.at(-1)!
    expect(last.phase).toBe('success')
    expect(last.fraction).toBe(1)
    expect(last.path).toBe(join(lib.modelsDir, 'hf', 'acme', 'Tiny-Chat-GGUF', 'tiny-chat-Q4_K_M.gguf'))
    expect(fileSha(last.path!)).toBe(sha256(model))
    expect(existsSync(`${last.path}.part`)).toBe(false)
    expectMonotonic(seen)
    const onDisk = await lib.onDisk()
    expect(onDisk.map((e) => [e.name, e.owner])).toContainEqual(['tiny-chat-Q4_K_M', 'switchboard'])
  })

  it('resumes from the bytes on disk when the connection drops at 30 %, 60 % and 90 %', async () => {
    const lib = await withHub({ dropAt: [0.3, 0.6, 0.9] })
    const { snapshot } = await lib.pull('hf:acme/Tiny-Chat-GGUF:Q4_K_M')
    const seen = await follow(lib, snapshot.id)
    const last = seen.at(-1)!
    expect(last.phase, last.error?.message).toBe('success')
    expect(fileSha(last.path!)).toBe(sha256(model))
    const ranged = hub!.stats.requests.filter((r) => r.range && !r.probe)
    expect(ranged.length).toBe(3)
    expect(ranged.every((r) => r.status === 206)).toBe(true)
    // Never started over: each retry asks from (about) where its drop was; only bytes in flight at a drop are fetched twice.
    const starts = ranged.map((r) => Number(/bytes=(\d+)-$/.exec(r.range!)![1]) / model.length)
    expect(starts[0]).toBeGreaterThan(0.2)
    expect(starts[1]).toBeGreaterThan(0.5)
    expect(starts[2]).toBeGreaterThan(0.8)
    expectMonotonic(seen)
  })

  it('refuses a file with a corrupted byte and downloads it again', async () => {
    const lib = await withHub({ corruptOnce: true })
    const { snapshot } = await lib.pull('hf:acme/Tiny-Chat-GGUF:Q4_K_M')
    const last = (await follow(lib, snapshot.id)).at(-1)!
    expect(last.phase).toBe('success')
    expect(fileSha(last.path!)).toBe(sha256(model))
    expect(last.notes.join(' ')).toMatch(/damaged file was refused and downloaded again/)
    expect(hub!.stats.bytesSent).toBe(2 * model.length)
  })

  it('starts over cleanly, and says so, when the server ignores Range', async () => {
    const lib = await withHub({ dropAt: [0.5], ignoreRange: true })
    const { snapshot } = await lib.pull('hf:acme/Tiny-Chat-GGUF:Q4_K_M')
    const seen = await follow(lib, snapshot.id)
    const last = seen.at(-1)!
    expect(last.phase).toBe('success')
    expect(fileSha(last.path!)).toBe(sha256(model))
    expect(last.notes.join(' ')).toMatch(/does not support resuming.*starts over/)
    expectMonotonic(seen)
  })

  it('downloads every part of a split model as one download', async () => {
    const lib = await withHub()
    const { snapshot } = await lib.pull('hf:acme/Tiny-Chat-GGUF:F16')
    const last = (await follow(lib, snapshot.id)).at(-1)!
    expect(last.phase).toBe('success')
    expect(last.totalBytes).toBe(part1.length + part2.length)
    expect(last.files).toHaveLength(2)
    const dir = join(lib.modelsDir, 'hf', 'acme', 'Tiny-Chat-GGUF', 'split')
    expect(fileSha(join(dir, 'tiny-chat-F16-00001-of-00002.gguf'))).toBe(sha256(part1))
    expect(fileSha(join(dir, 'tiny-chat-F16-00002-of-00002.gguf'))).toBe(sha256(part2))
    expect(last.path).toBe(join(dir, 'tiny-chat-F16-00001-of-00002.gguf'))
  })

  it('makes one transfer of a file asked for twice at once', async () => {
    const lib = await withHub({ bytesPerSecond: 8 * MB })
    const [a, b] = await Promise.all([lib.pull('hf:acme/Tiny-Chat-GGUF:Q4_K_M'), lib.pull('hf:acme/Tiny-Chat-GGUF:tiny-chat-Q4_K_M.gguf')])
    expect(b.snapshot.id).toBe(a.snapshot.id)
    const last = (await follow(lib, a.snapshot.id)).at(-1)!
    expect(last.phase).toBe('success')
    expect(hub!.stats.requests.filter((r) => r.path.startsWith('/cdn/') && !r.probe)).toHaveLength(1)
  })

  it('pauses with the partial kept, resumes from it, and cancel removes it', async () => {
    const lib = await withHub({ bytesPerSecond: 4 * MB })
    const { snapshot } = await lib.pull('hf:acme/Tiny-Chat-GGUF:Q4_K_M')
    const dest = join(lib.modelsDir, 'hf', 'acme', 'Tiny-Chat-GGUF', 'tiny-chat-Q4_K_M.gguf')
    while ((existsSync(`${dest}.part`) ? statSync(`${dest}.part`).size : 0) < MB) await new Promise((r) => setTimeout(r, 20))
    expect(lib.downloads.pause(snapshot.id)).toBe(true)
    const paused = await lib.downloads.wait(snapshot.id)
    expect(paused.phase).toBe('paused')
    const kept = statSync(`${dest}.part`).size
    expect(kept).toBeGreaterThanOrEqual(MB)
    hub!.faults.bytesPerSecond = undefined
    const resumed = lib.downloads.resume(snapshot.id)
    expect(resumed.id).toBe(snapshot.id)
    const last = await lib.downloads.wait(snapshot.id)
    expect(last.phase).toBe('success')
    expect(last.resumedBytes).toBe(kept)
    expect(fileSha(dest)).toBe(sha256(model))

    hub!.faults.bytesPerSecond = 2 * MB
    const other = await lib.pull('hf:acme/Tiny-Chat-GGUF:Q8_0')
    const q8dest = join(lib.modelsDir, 'hf', 'acme', 'Tiny-Chat-GGUF', 'tiny-chat-Q8_0.gguf')
    while (!existsSync(`${q8dest}.part`) || statSync(`${q8dest}.part`).size === 0) await new Promise((r) => setTimeout(r, 20))
    await lib.downloads.cancel(other.snapshot.id)
    expect(lib.downloads.get(other.snapshot.id)?.phase).toBe('cancelled')
    expect(existsSync(`${q8dest}.part`)).toBe(false)
    expect(existsSync(q8dest)).toBe(false)
  })

  it('picks up an interrupted download after a restart, from its bytes on disk', async () => {
    hub = await startFakeHfHub(repos(), { faults: { bytesPerSecond: 4 * MB } })
    const dataDir = mkdtempSync(join(tmpdir(), 'sb-lib-'))
    const first = library(dataDir)
    await first.setSettings({ hubEndpoint: hub.url })
    const { snapshot } = await first.pull('hf:acme/Tiny-Chat-GGUF:Q4_K_M')
    const dest = join(first.modelsDir, 'hf', 'acme', 'Tiny-Chat-GGUF', 'tiny-chat-Q4_K_M.gguf')
    while ((existsSync(`${dest}.part`) ? statSync(`${dest}.part`).size : 0) < MB) await new Promise((r) => setTimeout(r, 20))
    await first.close()
    hub.faults.bytesPerSecond = undefined
    const second = library(dataDir)
    const restored = await second.downloads.restore()
    expect(restored).toHaveLength(1)
    expect(restored[0]!.id).toBe(snapshot.id)
    expect(restored[0]!.completedBytes).toBeGreaterThanOrEqual(MB)
    const last = await second.downloads.wait(snapshot.id)
    expect(last.phase).toBe('success')
    expect(last.resumed).toBe(true)
    expect(fileSha(dest)).toBe(sha256(model))
  })

  it('refuses to start without the disk space, and stops with a clear error when the disk fills', async () => {
    hub = await startFakeHfHub(repos())
    const lib = library(undefined, { diskSpace: async () => 1000 })
    await lib.setSettings({ hubEndpoint: hub.url })
    const { snapshot } = await lib.pull('hf:acme/Tiny-Chat-GGUF:Q4_K_M')
    const ended = await lib.downloads.wait(snapshot.id)
    expect(ended.phase).toBe('error')
    expect(ended.error?.message).toMatch(/Not enough disk space: this model needs .* GB more/)
    expect(hub.stats.requests.filter((r) => !r.probe)).toHaveLength(0)

    // A full disk mid-way: every write of a file fails with ENOSPC, as the kernel answers it. (A
    // link from the partial to /dev/full would do it for real, but the library refuses to write
    // through a link, tests/integration/security/hub-path-escape.test.ts.)
    const full = library()
    await full.setSettings({ hubEndpoint: hub.url })
    const probe = await open(join(full.modelsDir, '..', 'probe'), 'w')
    const handles = Object.getPrototypeOf(probe) as { writev: (...args: unknown[]) => Promise<unknown> }
    await probe.close()
    const spy = vi.spyOn(handles, 'writev').mockRejectedValue(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28 }))
    try {
      const filled = await full.pull('hf:acme/Tiny-Chat-GGUF:Q4_K_M')
      const end = await full.downloads.wait(filled.snapshot.id)
      expect(end.phase).toBe('error')
      expect(end.error).toMatchObject({ code: 'diskFull' })
      expect(end.error?.message).toMatch(/disk is full .* kept: free some space and resume, or cancel/)
    } finally {
      spy.mockRestore()
    }
  })

  it('explains a missing repository, a missing quantisation and a gated repository', async () => {
    const lib = await withHub()
    await expect(lib.pull('hf:acme/Nope-GGUF')).rejects.toThrow(/no repository "acme\/Nope-GGUF"/)
    await expect(lib.pull('hf:acme/Tiny-Chat-GGUF:Q3_K_S')).rejects.toThrow(/has no Q3_K_S file; it has F16, Q4_K_M, Q8_0/)
    const gated = await lib.pull('hf:acme/Gated-Tiny-GGUF')
    const end = await lib.downloads.wait(gated.snapshot.id)
    expect(end.phase).toBe('error')
    expect(end.error?.message).toMatch(/needs a Hugging Face token: it is gated/)

    const wrong = library(undefined, { hfToken: async () => 'hf_not_granted' })
    await wrong.setSettings({ hubEndpoint: hub!.url })
    const denied = await wrong.downloads.wait((await wrong.pull('hf:acme/Gated-Tiny-GGUF')).snapshot.id)
    expect(denied.error?.message).toMatch(/no access to this gated repository: accept its terms/)

    const granted = library(undefined, { hfToken: async () => hub!.validToken })
    await granted.setSettings({ hubEndpoint: hub!.url })
    const ok = await granted.downloads.wait((await granted.pull('hf:acme/Gated-Tiny-GGUF')).snapshot.id)
    expect(ok.phase).toBe('success')
  })
})

describe('model library: Ollama models without Ollama', () => {
  it('pulls manifest and blobs by digest into an Ollama-style store, verified, manifest last', async () => {
    registry = await startFakeOllamaRegistry([{ name: 'tinychat', tag: '1m', model }], { faults: { dropAt: [0.5] } })
    const lib = library(undefined, { ollamaRegistry: registry.url })
    const { snapshot } = await lib.pull('ollama:tinychat:1m')
    const seen = await follow(lib, snapshot.id)
    const last = seen.at(-1)!
    expect(last.phase, last.error?.message).toBe('success')
    expect(last.path).toBe(join(lib.modelsDir, 'ollama', 'blobs', `sha256-${sha256(model)}`))
    expect(fileSha(last.path!)).toBe(sha256(model))
    const manifest = JSON.parse(readFileSync(join(lib.modelsDir, 'ollama', 'manifests', 'registry.ollama.ai', 'library', 'tinychat', '1m'), 'utf8')) as { layers: unknown[] }
    expect(manifest.layers).toHaveLength(3)
    expectMonotonic(seen)
    expect((await lib.onDisk()).map((e) => [e.name, e.owner, e.path])).toContainEqual(['tinychat:1m', 'switchboard', last.path])
  })

  it('says the name was not found in the Ollama library', async () => {
    registry = await startFakeOllamaRegistry([])
    const lib = library(undefined, { ollamaRegistry: registry.url })
    await expect(lib.pull('ollama:nosuchmodel:7b')).rejects.toThrow(/"nosuchmodel:7b" was not found in the Ollama library/)
  })

  it('lists models in Ollama\'s store in place and never deletes them without saying so', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sb-lib-'))
    const ollamaDir = join(dataDir, 'dot-ollama')
    const digest = sha256(model)
    mkdirSync(join(ollamaDir, 'blobs'), { recursive: true })
    writeFileSync(join(ollamaDir, 'blobs', `sha256-${digest}`), model)
    mkdirSync(join(ollamaDir, 'manifests', 'registry.ollama.ai', 'library', 'tiny'), { recursive: true })
    writeFileSync(
      join(ollamaDir, 'manifests', 'registry.ollama.ai', 'library', 'tiny', 'latest'),
      JSON.stringify({ schemaVersion: 2, config: { digest: `sha256:${'0'.repeat(64)}`, size: 1 }, layers: [{ mediaType: 'application/vnd.ollama.image.model', digest: `sha256:${digest}`, size: model.length }] })
    )
    const lib = new ModelsLibrary({ dataDir, folders: { dataDir, ollama: ollamaDir } })
    libraries.push(lib)
    const entry = (await lib.onDisk()).find((e) => e.owner === 'ollama')!
    expect(entry).toMatchObject({ name: 'tiny:latest', path: join(ollamaDir, 'blobs', `sha256-${digest}`), sizeBytes: model.length })
    await expect(lib.remove(entry.path!)).rejects.toThrow(/belongs to Ollama: deleting it here removes it from Ollama too/)
    expect(existsSync(entry.path!)).toBe(true)
    // Confirmed: gone from Ollama as `ollama rm` would leave it (manifest and blob), not a manifest naming a missing file.
    await lib.remove(entry.path!, { confirmOtherApp: true })
    expect(existsSync(entry.path!)).toBe(false)
    expect(existsSync(join(ollamaDir, 'manifests', 'registry.ollama.ai', 'library', 'tiny', 'latest'))).toBe(false)
  })

  it("deleting a model pulled into the app's Ollama store removes its manifest and the blobs no other manifest uses", async () => {
    const other = paddedModel(1 * MB, 11)
    registry = await startFakeOllamaRegistry([
      { name: 'tinychat', tag: '1m', model },
      { name: 'otherchat', tag: '1m', model: other }
    ])
    const lib = library(undefined, { ollamaRegistry: registry.url })
    for (const ref of ['ollama:tinychat:1m', 'ollama:otherchat:1m']) expect((await lib.downloads.wait((await lib.pull(ref)).snapshot.id)).phase).toBe('success')
    const store = join(lib.modelsDir, 'ollama')
    const manifestOf = (name: string) => join(store, 'manifests', 'registry.ollama.ai', 'library', name, '1m')
    const digests = (name: string) => {
      const m = JSON.parse(readFileSync(manifestOf(name), 'utf8')) as { config: { digest: string }; layers: Array<{ digest: string }> }
      return [m.config.digest, ...m.layers.map((l) => l.digest)].map((d) => join(store, 'blobs', d.replace(':', '-')))
    }
    const gone = digests('tinychat')
    const kept = digests('otherchat')
    const shared = gone.filter((p) => kept.includes(p))
    const entry = (await lib.onDisk()).find((e) => e.name === 'tinychat:1m')!
    expect(entry.owner).toBe('switchboard')
    await lib.remove(entry.path!)
    expect(existsSync(manifestOf('tinychat'))).toBe(false)
    for (const p of gone) expect(existsSync(p), p).toBe(shared.includes(p))
    for (const p of kept) expect(existsSync(p), p).toBe(true)
    // No manifest left pointing at a missing blob: the engine lists the other model and reports nothing.
    expect((await lib.onDisk()).map((e) => e.name)).toEqual(['otherchat:1m'])
    const { discoverModels } = await import('../../src/core/engine/model-discovery')
    expect((await discoverModels({ dataDir: join(lib.modelsDir, '..'), ollamaModelsDir: join(store, 'none'), lmStudioDirs: [] })).problems).toEqual([])
  })
})

