import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { getLlama, LlamaChatSession, type Llama } from 'node-llama-cpp'
import { encodeGguf } from '../../fixtures/gguf/gguf-writer'
import { tinyLlamaGguf, tinyVocab, writeTinyLlamaGguf } from '../../fixtures/gguf/tiny-llama'

describe('the tiny GGUF model fixture', () => {
  let dir: string
  let llama: Llama
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sb-gguf-'))
    llama = await getLlama({ gpu: false, build: 'never' })
  }, 60_000)
  afterAll(async () => {
    await llama?.dispose()
    rmSync(dir, { recursive: true, force: true })
  })

  it('is a GGUF v3 file of about 500 KB, the same bytes for the same seed and different for another', () => {
    const a = encodeGguf(tinyLlamaGguf({ seed: 7 }))
    const b = encodeGguf(tinyLlamaGguf({ seed: 7 }))
    const c = encodeGguf(tinyLlamaGguf({ seed: 8 }))
    expect(a.subarray(0, 4).toString('ascii')).toBe('GGUF')
    expect(a.readUInt32LE(4)).toBe(3)
    expect(Number(a.readBigUInt64LE(8))).toBe(3 + 2 * 9) // tensors
    expect(a.length).toBeGreaterThan(300_000)
    expect(a.length).toBeLessThan(800_000)
    expect(a.equals(b)).toBe(true)
    expect(a.equals(c)).toBe(false)
  })

  it('is read by node-llama-cpp with the metadata written', async () => {
    const path = join(dir, 'meta.gguf')
    writeTinyLlamaGguf(path, { contextLength: 4096, name: 'Meta test' })
    const { readGgufFileInfo } = await import('node-llama-cpp')
    const info = await readGgufFileInfo(path)
    expect(info.version).toBe(3)
    expect(info.metadata.general.architecture).toBe('llama')
    expect(info.metadata.general.name).toBe('Meta test')
    const arch = info.architectureMetadata as { context_length?: number; embedding_length?: number }
    expect(arch.context_length).toBe(4096)
    expect(arch.embedding_length).toBe(64)
    expect(info.metadata.tokenizer.ggml.tokens.length).toBe(tinyVocab().tokens.length)
    expect(info.tensorInfo?.map((t) => t.name)).toContain('blk.1.ffn_down.weight')
  })

  it('loads in llama.cpp, chats with the ChatML template, stops at max tokens, greedy output is deterministic and readable', async () => {
    const path = join(dir, 'tiny.gguf')
    writeTinyLlamaGguf(path)
    const model = await llama.loadModel({ modelPath: path })
    try {
      const context = await model.createContext({ threads: 1, contextSize: 2048 })
      const first = new LlamaChatSession({ contextSequence: context.getSequence() })
      expect(first.chatWrapper.wrapperName).toBe('ChatML')
      const a = await first.promptWithMeta('Hello there', { maxTokens: 24, temperature: 0 })
      expect(a.stopReason).toBe('maxTokens')
      expect(a.responseText.length).toBeGreaterThan(0)
      // Every character is printable ASCII: the output rows of other tokens are zero.
      expect(a.responseText).toMatch(/^[\x20-\x7e]+$/)
      await context.dispose()
      const again = await model.createContext({ threads: 1, contextSize: 2048 })
      const second = new LlamaChatSession({ contextSequence: again.getSequence() })
      const b = await second.promptWithMeta('Hello there', { maxTokens: 24, temperature: 0 })
      expect(b.responseText).toBe(a.responseText)
      await again.dispose()
    } finally {
      await model.dispose()
    }
  }, 60_000)

  it('embeds text into 64 dimensions', async () => {
    const path = join(dir, 'embed.gguf')
    writeTinyLlamaGguf(path)
    const model = await llama.loadModel({ modelPath: path })
    try {
      const ctx = await model.createEmbeddingContext({ threads: 1 })
      const one = await ctx.getEmbeddingFor('hello world')
      const two = await ctx.getEmbeddingFor('something else entirely')
      expect(one.vector.length).toBe(64)
      expect(one.vector).not.toEqual(two.vector)
      await ctx.dispose()
    } finally {
      await model.dispose()
    }
  }, 60_000)
})
