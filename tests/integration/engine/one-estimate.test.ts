import { statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { formatBytes as engineFormatBytes } from '../../../src/core/engine'
import { modelShape, readGgufFile } from '../../../src/core/gguf/gguf-header'
import { contextPlan, estimateMemory } from '../../../src/core/gguf/fit-estimate'
import { formatBytes } from '../../../src/shared/local/format'
import { encodeGguf } from '../../fixtures/gguf/gguf-writer'
import { tinyLlamaGguf } from '../../fixtures/gguf/tiny-llama'
import { engineHarness, type EngineHarness } from './engine-harness'

const GB = 1e9

// The library's fit, `models files`, the engine's load guard and the Local models page all show
// the memory a model needs: one estimate, one default context, one unit for all of them.
describe('one memory figure and one default context for a model', () => {
  let h: EngineHarness
  beforeEach(() => {
    h = engineHarness({ totalMemoryBytes: 64 * GB })
  })
  afterEach(async () => h.close())

  it("the engine's plan shows the fit estimate's figure for the same file and context", async () => {
    const path = join(h.dataDir, 'models', 'long.gguf')
    writeFileSync(path, encodeGguf(tinyLlamaGguf({ contextLength: 131_072 })))
    const shape = modelShape(await readGgufFile(path))
    const size = statSync(path).size
    const plan = await h.engine.plan('long', { contextSize: 4096 })
    // Its slots each have the context; the memory holds all of them.
    expect(plan.slots).toBe(2)
    const fit = estimateMemory(shape, size, 4096 * plan.slots, { freeRamBytes: 8 * GB })
    expect(plan.neededBytes).toBe(fit.totalBytes)
    expect(plan.contextBytes).toBe(fit.kvCacheBytes)
  })

  it('one default context: the engine loads with the context the library judges the fit at', async () => {
    const path = join(h.dataDir, 'models', 'long.gguf')
    writeFileSync(path, encodeGguf(tinyLlamaGguf({ contextLength: 131_072 })))
    const shape = modelShape(await readGgufFile(path))
    const plan = await h.engine.plan('long')
    const chosen = contextPlan(shape, statSync(path).size, h.engine.memory)
    expect([plan.contextSize, plan.slots]).toEqual([chosen.perSlot, chosen.slots])
    expect(plan.contextReason).toBe('capped-default')
  })

  it('sizes read the same in the engine, the library and the pages', () => {
    for (const bytes of [954 * 1024 ** 2, 1e9, 5.6 * 1024 ** 3, 6_060_000_000]) expect(engineFormatBytes(bytes)).toBe(formatBytes(bytes))
  })
})
