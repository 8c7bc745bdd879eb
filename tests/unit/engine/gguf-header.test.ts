import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { GgufFormatError, readGgufHeader } from '../../../src/core/engine/gguf-header'
import { kvBytesPerToken } from '../../../src/core/gguf/fit-estimate'
import { encodeGguf } from '../../fixtures/gguf/gguf-writer'
import { tinyLlamaGguf } from '../../fixtures/gguf/tiny-llama'

const dir = mkdtempSync(join(tmpdir(), 'sb-gguf-h-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function file(name: string, bytes: Buffer | string): string {
  const p = join(dir, name)
  writeFileSync(p, bytes)
  return p
}

describe('readGgufHeader', () => {
  it('reads the architecture, name, context and KV shape of a model without its tensors', async () => {
    const h = await readGgufHeader(file('tiny.gguf', encodeGguf(tinyLlamaGguf({ contextLength: 8192, name: 'Tiny' }))))
    expect(h).toMatchObject({ version: 3, architecture: 'llama', name: 'Tiny', contextLength: 8192, blockCount: 2, embeddingLength: 64, headCount: 4, headCountKv: 2, tensorCount: 21 })
    expect(h.chatTemplate).toContain('<|im_start|>')
    // 2 layers × 1024 tokens × (K 32 + V 32) × 2 bytes
    expect(1024 * kvBytesPerToken(h.shape)).toBe(2 * 1024 * 64 * 2)
  })

  it.each([
    ['empty.gguf', Buffer.alloc(0), 'empty'],
    ['text.gguf', 'hello, I am a text file', 'not-gguf'],
    ['truncated.gguf', encodeGguf(tinyLlamaGguf()).subarray(0, 2000), 'truncated'],
    ['header-only.gguf', Buffer.from('GGUF'), 'truncated']
  ])('names what is wrong with %s', async (name, bytes, reason) => {
    const error = await readGgufHeader(file(name, bytes)).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(GgufFormatError)
    expect((error as GgufFormatError).reason).toBe(reason)
  })
})
