import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { main } from '../../src/cli/main'
import type { CliIO } from '../../src/cli/command'
import { discoverModels } from '../../src/core/engine/model-discovery'
import { estimateMemory } from '../../src/core/gguf/fit-estimate'
import { curatedModels, hfFilePath, recommendedModels } from '../../src/core/models-library/recommended'
import type { RecommendedList } from '../../src/shared/models-library/types'
import { encodeGguf } from '../fixtures/gguf/gguf-writer'
import { tinyLlamaGguf } from '../fixtures/gguf/tiny-llama'

const GB = 1e9

function io(env: NodeJS.ProcessEnv) {
  let out = ''
  const stdout = Object.assign(new PassThrough(), { isTTY: false, columns: 160 })
  stdout.on('data', (d: Buffer) => (out += d.toString()))
  const value: CliIO = { stdout, stderr: new PassThrough(), stdin: new PassThrough(), env }
  return { io: value, out: () => out }
}

describe('the recommended models for a first offline chat', () => {
  it('ships 3-5 small instruction models with repo, file, quantisation, size, licence and a line each', () => {
    const list = curatedModels()
    expect(list.length).toBeGreaterThanOrEqual(3)
    expect(list.length).toBeLessThanOrEqual(5)
    for (const m of list) {
      expect(m.file.toUpperCase()).toContain(m.quant)
      expect(m.sizeBytes).toBeLessThan(3 * GB)
      expect(m.goodAt.length).toBeGreaterThan(20)
    }
    expect(new Set(list.map((m) => m.id)).size).toBe(list.length)
  })

  it("gives each the fit estimate's figure for this machine, smallest first, and says when none fits", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sb-rec-'))
    const roomy = await recommendedModels(dataDir, { freeRamBytes: 16 * GB })
    const sizes = roomy.models.map((m) => m.sizeBytes)
    expect(sizes).toEqual([...sizes].sort((a, b) => a - b))
    expect(roomy.models.every((m) => m.fit.verdict === 'fits')).toBe(true)
    expect(roomy.noneFits).toBe(false)
    const first = curatedModels().find((m) => m.id === roomy.models[0]!.id)!
    expect(roomy.models[0]!.fit.totalBytes).toBe(estimateMemory(first.shape, first.sizeBytes, roomy.models[0]!.fit.contextTokens, { freeRamBytes: 16 * GB }).totalBytes)

    const small = await recommendedModels(dataDir, { freeRamBytes: 200_000_000 })
    expect(small.noneFits).toBe(true)
    expect(small.models[0]!.fit.verdict).toBe('doesNotFit')
    expect(small.models[0]!.fit.totalBytes).toBeGreaterThan(200_000_000)
  })

  it('knows a downloaded one by the id the built-in engine lists it under', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sb-rec-'))
    const m = curatedModels()[0]!
    const path = hfFilePath(join(dataDir, 'models'), m.repo, m.file)
    mkdirSync(dirname(path), { recursive: true })
    writeFileSync(path, encodeGguf(tinyLlamaGguf()))
    const list = await recommendedModels(dataDir, { freeRamBytes: 16 * GB })
    const entry = list.models.find((r) => r.id === m.id)!
    expect(entry.path).toBe(path)
    const found = await discoverModels({ dataDir, home: dataDir, env: {} })
    expect(found.models.find((d) => d.path === path)?.id).toBe(entry.builtinId)
    expect(list.models.filter((r) => r.path)).toHaveLength(1)
  })

  it('switchboard models recommended prints the list, and --json the same as the bridge', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sb-rec-cli-'))
    const json = io({ SWITCHBOARD_DATA_DIR: dataDir })
    expect(await main(['models', 'recommended', '--json'], json.io)).toBe(0)
    const parsed = JSON.parse(json.out()) as RecommendedList
    expect(parsed.models.map((m) => m.id)).toEqual((await recommendedModels(dataDir, parsed.memory)).models.map((m) => m.id))
    expect(parsed.models[0]!.ref).toMatch(/^hf:[\w.-]+\/[\w.-]+:[\w.-]+\.gguf$/)
    const text = io({ SWITCHBOARD_DATA_DIR: dataDir })
    expect(await main(['models', 'recommended'], text.io)).toBe(0)
    for (const m of parsed.models) expect(text.out()).toContain(m.ref)
    expect(text.out()).toMatch(/fits|tight|does not fit/)
  })
})
