import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { defaultThreads, ModelTooLargeError } from '../../../src/core/engine/builtin-engine'
import { encodeGguf } from '../../fixtures/gguf/gguf-writer'
import { tinyLlamaGguf } from '../../fixtures/gguf/tiny-llama'
import { engineHarness, type EngineHarness } from './engine-harness'

const MB = 1024 * 1024

describe('the built-in engine: memory, context and loading policy (real engine process)', () => {
  let h: EngineHarness
  beforeEach(() => {
    h = engineHarness({ totalMemoryBytes: 8 * 1024 * MB })
    h.model('a', 1)
    h.model('b', 2)
    h.model('c', 3)
  })
  afterEach(async () => h.close())

  it('takes the context from the GGUF, caps a huge one by default and says why, and lets the user choose', async () => {
    expect((await h.engine.plan('a'))).toMatchObject({ contextSize: 2048, trainedContextSize: 2048, contextReason: 'trained' })
    writeFileSync(join(h.dataDir, 'models', 'long.gguf'), encodeGguf(tinyLlamaGguf({ contextLength: 131_072 })))
    expect(await h.engine.plan('long')).toMatchObject({ contextSize: 8192, trainedContextSize: 131_072, contextReason: 'capped-default' })
    h.settings.update({ contextSizes: { long: 40_000 } })
    expect(await h.engine.plan('long')).toMatchObject({ contextSize: 40_000, contextReason: 'user' })
    // A budget too small for the full context gives the largest that fits, and says so.
    const at4k = (await h.engine.plan('long', { contextSize: 4096 })).neededBytes
    h.settings.update({ contextSizes: {}, memoryBudgetBytes: Math.ceil(at4k / 0.85) })
    const capped = await h.engine.plan('long')
    expect(capped.contextReason).toBe('capped-memory')
    expect(capped.contextSize).toBe(4096)
    expect(capped.neededBytes).toBeLessThanOrEqual(capped.budgetBytes)
  })

  it('refuses a model over the memory budget with the figures, and loads it anyway when asked', async () => {
    h.settings.update({ memoryBudgetBytes: 10 * MB })
    const refused = await h.engine.load('a').catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(ModelTooLargeError)
    const message = (refused as Error).message
    expect(message).toMatch(/needs about [\d.]+ MB \(weights [\d.]+ KB \+ context [\d.]+ KB for 1,024 tokens\), more than the memory budget of 10\.5 MB \(of 8\.6 GB on this machine\)/)
    expect(message).toMatch(/load it anyway/)
    expect((refused as ModelTooLargeError).figures).toMatchObject({ budgetBytes: 10 * MB, contextSize: 1024 })
    // Nothing was started for a refusal.
    expect(h.engine.client.starts).toBe(0)
    const plan = await h.engine.load('a', { loadAnyway: true })
    expect(plan.modelId).toBe('a')
    const ps = await h.engine.ps()
    expect(ps.models.map((m) => m.modelId)).toEqual(['a'])
    // Real figures from the engine process: its resident memory and the model's weights.
    expect(ps.rssBytes).toBeGreaterThan(10 * MB)
    expect(ps.models[0]!.weightsBytes).toBeGreaterThan(300_000)
    expect(ps.models[0]!.contextBytes).toBeGreaterThan(0)
  }, 60_000)

  it('keeps the loaded model when a model loaded anyway then fails to load', async () => {
    const perModel = (await h.engine.plan('a')).neededBytes
    // A model over the budget alone, whose header reads but whose architecture llama.cpp does not know.
    writeFileSync(join(h.dataDir, 'models', 'broken.gguf'), encodeGguf(tinyLlamaGguf({ contextLength: 65_536, architecture: 'nosucharch' })))
    h.settings.update({ memoryBudgetBytes: perModel + MB, contextSizes: { broken: 65_536 } })
    expect((await h.engine.plan('broken')).neededBytes).toBeGreaterThan(perModel + MB)
    await h.engine.load('a')
    const failed = await h.engine.load('broken', { loadAnyway: true }).catch((e: unknown) => e)
    expect(failed).toBeInstanceOf(Error)
    expect((await h.engine.ps()).models.map((m) => m.modelId)).toEqual(['a'])
    // Still loaded in the engine process itself, not only in the core's books.
    const status = await h.engine.client.status()
    expect(status?.models.map((m) => m.modelId)).toEqual(['a'])
    // One that does load takes the place of the idle ones once it has.
    writeFileSync(join(h.dataDir, 'models', 'big.gguf'), encodeGguf(tinyLlamaGguf({ contextLength: 65_536 })))
    h.settings.update({ contextSizes: { broken: 65_536, big: 65_536 } })
    await h.engine.load('big', { loadAnyway: true })
    expect((await h.engine.client.status())?.models.map((m) => m.modelId)).toEqual(['big'])
  }, 60_000)

  it('shares one load between two requests for the same model, and loads two models at once', async () => {
    const [one, two] = await Promise.all([h.engine.load('a'), h.engine.load('a')])
    expect(one).toBe(two)
    await Promise.all([h.engine.load('b'), h.engine.load('c')])
    const ps = await h.engine.ps()
    expect(ps.models.map((m) => m.modelId).sort()).toEqual(['a', 'b', 'c'])
    expect(h.engine.client.starts).toBe(1)
  }, 60_000)

  it('unloads the least recently used model to make room within the budget', async () => {
    const perModel = (await h.engine.plan('a')).neededBytes
    h.settings.update({ memoryBudgetBytes: Math.floor(perModel * 2.5) })
    await h.engine.load('a')
    await h.engine.load('b')
    await h.engine.load('a') // a is now the more recent
    await h.engine.load('c')
    expect((await h.engine.ps()).models.map((m) => m.modelId).sort()).toEqual(['a', 'c'])
    expect((await h.engine.list()).models.filter((m) => m.loaded).map((m) => m.id).sort()).toEqual(['a', 'c'])
  }, 60_000)

  it('unloads a model after its keep-alive and stops the engine process when nothing is loaded', async () => {
    h.settings.update({ keepAliveMs: 300 })
    await h.engine.load('a')
    expect(h.engine.client.running).toBe(true)
    const until = Date.now() + 10_000
    while (h.engine.client.running && Date.now() < until) await new Promise((r) => setTimeout(r, 50))
    expect(h.engine.client.running).toBe(false)
    expect((await h.engine.ps()).models).toEqual([])
  }, 30_000)

  it('uses one thread on two cores or fewer, else half the cores up to eight', () => {
    expect([1, 2, 4, 8, 16, 64].map(defaultThreads)).toEqual([1, 1, 2, 4, 8, 8])
    expect(h.engine.threads).toBe(1)
    h.settings.update({ threads: 3 })
    expect(h.engine.threads).toBe(3)
  })
})
