import { describe, expect, it } from 'vitest'
import { estimateMemory, maxContext, recommendQuant } from '../../../src/core/gguf/fit-estimate'
import { modelShape, parseGgufHeader } from '../../../src/core/gguf/gguf-header'
import { groupGgufFiles, quantOf } from '../../../src/core/models-library/gguf-files'
import { knownHeader } from '../../fixtures/gguf-headers/write-gguf'

/**
 * The figures docs/models-library.md works out by hand from the formula (weights + KV
 * cache + overhead) for headers with the metadata of well-known models. The estimate read
 * from the header must land within 15 % of them.
 */
const DOCUMENTED = [
  { key: 'llama-3-8b', weights: 4_920_000_000, ctx: 8192, kv: 1_073_741_824, overhead: 1_101_529_088, total: 7_095_270_912 },
  { key: 'mistral-7b', weights: 4_370_000_000, ctx: 8192, kv: 1_073_741_824, overhead: 904_396_800, total: 6_348_138_624 },
  { key: 'qwen2.5-7b', weights: 4_680_000_000, ctx: 8192, kv: 469_762_048, overhead: 1_078_984_704, total: 6_228_746_752 },
  { key: 'tiny', weights: 520_000, ctx: 2048, kv: 524_288, overhead: 286_502_912, total: 287_547_200 }
] as const

const within = (actual: number, expected: number, share = 0.15) => Math.abs(actual - expected) <= share * expected

describe('memory fit estimate', () => {
  for (const d of DOCUMENTED) {
    it(`${d.key}: weights + KV cache + overhead within 15 % of the documented figures`, () => {
      const shape = modelShape(parseGgufHeader(knownHeader(d.key)))
      const e = estimateMemory(shape, d.weights, d.ctx, { freeRamBytes: 16e9 })
      expect(within(e.kvCacheBytes, d.kv), `kv ${e.kvCacheBytes}`).toBe(true)
      expect(within(e.overheadBytes, d.overhead), `overhead ${e.overheadBytes}`).toBe(true)
      expect(within(e.totalBytes, d.total), `total ${e.totalBytes}`).toBe(true)
    })
  }

  it('judges fits / tight / does not fit against free RAM plus reported VRAM', () => {
    const shape = modelShape(parseGgufHeader(knownHeader('llama-3-8b')))
    expect(estimateMemory(shape, 4.92e9, 8192, { freeRamBytes: 16e9 }).verdict).toBe('fits')
    expect(estimateMemory(shape, 4.92e9, 8192, { freeRamBytes: 7.5e9 }).verdict).toBe('tight')
    expect(estimateMemory(shape, 4.92e9, 8192, { freeRamBytes: 4e9 }).verdict).toBe('doesNotFit')
    expect(estimateMemory(shape, 4.92e9, 8192, { freeRamBytes: 4e9, freeVramBytes: 8e9 }).verdict).toBe('fits')
  })

  it('finds the largest context that fits (the documented 6,656 tokens for Llama 3 8B Q4_K_M in 8 GB)', () => {
    const shape = modelShape(parseGgufHeader(knownHeader('llama-3-8b')))
    expect(maxContext(shape, 4.92e9, { freeRamBytes: 8e9 })).toBe(6656)
    // Capped by the model's own context, and 0 when not even the weights fit.
    expect(maxContext(shape, 4.92e9, { freeRamBytes: 64e9 })).toBe(8192)
    expect(maxContext(shape, 4.92e9, { freeRamBytes: 4e9 })).toBe(0)
    const e = estimateMemory(shape, 4.92e9, 6656, { freeRamBytes: 8e9 })
    expect(e.verdict).toBe('fits')
    expect(estimateMemory(shape, 4.92e9, 6656 + 512, { freeRamBytes: 8e9 }).verdict).not.toBe('fits')
  })

  it('recommends the best quantisation that fits, never above Q8_0', () => {
    const shape = modelShape(parseGgufHeader(knownHeader('llama-3-8b')))
    const files = groupGgufFiles([
      { path: 'Meta-Llama-3-8B-Instruct-Q2_K.gguf', sizeBytes: 3.18e9 },
      { path: 'Meta-Llama-3-8B-Instruct-Q4_K_M.gguf', sizeBytes: 4.92e9 },
      { path: 'Meta-Llama-3-8B-Instruct-Q6_K.gguf', sizeBytes: 6.6e9 },
      { path: 'Meta-Llama-3-8B-Instruct-Q8_0.gguf', sizeBytes: 8.54e9 },
      { path: 'Meta-Llama-3-8B-Instruct-f16.gguf', sizeBytes: 16.1e9 }
    ])
    expect(recommendQuant(files, shape, 8192, { freeRamBytes: 64e9 })?.quant).toBe('Q8_0')
    expect(recommendQuant(files, shape, 8192, { freeRamBytes: 10e9 })?.quant).toBe('Q4_K_M')
    expect(recommendQuant(files, shape, 8192, { freeRamBytes: 6.5e9 })?.quant).toBe('Q2_K')
    expect(recommendQuant(files, shape, 8192, { freeRamBytes: 2e9 })).toBeUndefined()
  })
})

describe('GGUF files of a repository', () => {
  it('names the quantisation of common file names', () => {
    expect(quantOf('Meta-Llama-3-8B-Instruct-Q4_K_M.gguf')).toBe('Q4_K_M')
    expect(quantOf('mistral-7b-instruct-v0.2.Q5_K_S.gguf')).toBe('Q5_K_S')
    expect(quantOf('qwen2.5-7b-instruct-q4_0-00001-of-00002.gguf')).toBe('Q4_0')
    expect(quantOf('Llama-3.2-1B-Instruct-IQ4_XS.gguf')).toBe('IQ4_XS')
    expect(quantOf('model-bf16.gguf')).toBe('BF16')
    expect(quantOf('model.gguf')).toBeUndefined()
  })

  it('makes one model of a split file, and leaves out an incomplete split', () => {
    const files = groupGgufFiles([
      { path: 'q8/model-Q8_0-00002-of-00002.gguf', sizeBytes: 100, sha256: 'b' },
      { path: 'q8/model-Q8_0-00001-of-00002.gguf', sizeBytes: 200, sha256: 'a' },
      { path: 'model-Q4_K_M-00001-of-00003.gguf', sizeBytes: 10 },
      { path: 'model-Q4_K_M-00003-of-00003.gguf', sizeBytes: 10 },
      { path: 'mmproj-model-f16.gguf', sizeBytes: 5 },
      { path: 'README.md', sizeBytes: 1 }
    ])
    expect(files.map((f) => [f.path, f.sizeBytes, f.parts.length, f.projector])).toEqual([
      ['mmproj-model-f16.gguf', 5, 1, true],
      ['q8/model-Q8_0-00001-of-00002.gguf', 300, 2, false]
    ])
    expect(files[1]!.parts.map((p) => p.sha256)).toEqual(['a', 'b'])
    expect(files[1]!.quant).toBe('Q8_0')
  })
})
