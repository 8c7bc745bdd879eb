import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { getLlama, LlamaChatSession, type Llama } from 'node-llama-cpp'
import { ModelsLibrary } from '../../src/core/models-library/library-service'
import { estimateMemory } from '../../src/core/gguf/fit-estimate'
import { modelShape, readGgufFile } from '../../src/core/gguf/gguf-header'
import { startFakeHfHub } from '../fixtures/fake-hf-hub/server'
import { startFakeOllamaRegistry } from '../fixtures/fake-ollama-registry/server'
import { encodeGguf } from '../fixtures/gguf/gguf-writer'
import { tinyLlamaGguf } from '../fixtures/gguf/tiny-llama'

/** A model downloaded by the library is a model llama.cpp loads and chats with (the engine's own runtime is tested on its side). */
describe('a downloaded model loads and chats', () => {
  const tiny = encodeGguf(tinyLlamaGguf({ seed: 3 }))
  let llama: Llama
  beforeAll(async () => {
    llama = await getLlama({ gpu: false, build: 'never' })
  }, 60_000)
  afterAll(async () => {
    await llama?.dispose()
  })

  async function chat(path: string): Promise<string> {
    const model = await llama.loadModel({ modelPath: path })
    try {
      const context = await model.createContext({ threads: 1, contextSize: 512 })
      const session = new LlamaChatSession({ contextSequence: context.getSequence() })
      const reply = await session.promptWithMeta('Hello', { maxTokens: 8, temperature: 0 })
      expect(reply.stopReason).toBe('maxTokens')
      return reply.responseText
    } finally {
      await model.dispose()
    }
  }

  it('from the Hugging Face hub, with a fit estimate for its header', async () => {
    const hub = await startFakeHfHub([{ id: 'acme/tiny-GGUF', files: [{ path: 'tiny-F32.gguf', content: tiny }] }], { faults: { dropAt: [0.4] } })
    const dataDir = mkdtempSync(join(tmpdir(), 'sb-lib-load-'))
    const lib = new ModelsLibrary({ dataDir, folders: { dataDir }, retryDelayMs: 10, memory: () => ({ freeRamBytes: 8e9 }) })
    try {
      await lib.setSettings({ hubEndpoint: hub.url })
      const details = await lib.repo('acme/tiny-GGUF')
      expect(details.shape).toMatchObject({ architecture: 'llama', blockCount: 2, embeddingLength: 64, headCount: 4, headCountKv: 2, contextLength: 2048 })
      expect(details.files[0]!.fit?.verdict).toBe('fits')
      const { snapshot } = await lib.pull('hf:acme/tiny-GGUF')
      const done = await lib.downloads.wait(snapshot.id)
      expect(done.phase, done.error?.message).toBe('success')
      // The documented formula on the real file: KV cache 524,288 bytes at 2,048 tokens.
      const e = estimateMemory(modelShape(await readGgufFile(done.path!)), tiny.length, 2048, { freeRamBytes: 8e9 })
      expect(e.kvCacheBytes).toBe(524_288)
      expect((await chat(done.path!)).length).toBeGreaterThan(0)
    } finally {
      await lib.close()
      await hub.close()
    }
  }, 120_000)

  it('from the Ollama registry, without Ollama', async () => {
    const registry = await startFakeOllamaRegistry([{ name: 'tiny', tag: 'latest', model: tiny }])
    const dataDir = mkdtempSync(join(tmpdir(), 'sb-lib-load-'))
    const lib = new ModelsLibrary({ dataDir, folders: { dataDir }, ollamaRegistry: registry.url })
    try {
      const { snapshot } = await lib.pull('ollama:tiny')
      const done = await lib.downloads.wait(snapshot.id)
      expect(done.phase, done.error?.message).toBe('success')
      expect((await lib.onDisk()).find((m) => m.path === done.path)).toMatchObject({ name: 'tiny:latest', owner: 'switchboard' })
      expect((await chat(done.path!)).length).toBeGreaterThan(0)
    } finally {
      await lib.close()
      await registry.close()
    }
  }, 120_000)
})
