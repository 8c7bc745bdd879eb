import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { discoverModels, OLLAMA_MODEL_MEDIA_TYPE } from '../../../src/core/engine/model-discovery'
import { encodeGguf } from '../../fixtures/gguf/gguf-writer'
import { tinyLlamaGguf } from '../../fixtures/gguf/tiny-llama'

const tiny = encodeGguf(tinyLlamaGguf())

function blob(modelsDir: string, content: Buffer | string): string {
  const digest = `sha256:${createHash('sha256').update(content).digest('hex')}`
  mkdirSync(join(modelsDir, 'blobs'), { recursive: true })
  writeFileSync(join(modelsDir, 'blobs', digest.replace(':', '-')), content)
  return digest
}

function manifest(modelsDir: string, repoPath: string[], tag: string, layers: Array<{ mediaType: string; digest: string }>): void {
  const dir = join(modelsDir, 'manifests', ...repoPath)
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, tag), JSON.stringify({ schemaVersion: 2, mediaType: 'application/vnd.docker.distribution.manifest.v2+json', layers }))
}

describe('model discovery', () => {
  let home: string
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'sb-disc-'))
  })
  afterEach(() => rmSync(home, { recursive: true, force: true }))

  it('finds nothing, and reports nothing, on a machine with no models', async () => {
    expect(await discoverModels({ home, env: {}, dataDir: join(home, 'data') })).toEqual({ models: [], problems: [] })
  })

  it("reads Ollama's store: the model layer's blob in place, the template and params layers, and names as Ollama does", async () => {
    const store = join(home, '.ollama', 'models')
    const model = blob(store, tiny)
    const template = blob(store, '{{ .Prompt }}')
    const params = blob(store, JSON.stringify({ stop: ['<|im_end|>'], num_ctx: 4096 }))
    manifest(store, ['registry.ollama.ai', 'library', 'tiny'], 'latest', [
      { mediaType: OLLAMA_MODEL_MEDIA_TYPE, digest: model },
      { mediaType: 'application/vnd.ollama.image.template', digest: template },
      { mediaType: 'application/vnd.ollama.image.params', digest: params }
    ])
    manifest(store, ['registry.ollama.ai', 'someone', 'tiny'], 'q4', [{ mediaType: OLLAMA_MODEL_MEDIA_TYPE, digest: model }])
    const { models, problems } = await discoverModels({ home, env: {} })
    expect(problems).toEqual([])
    // The same blob under two names is one file: listed once, under the first name found.
    expect(models.map((m) => m.id)).toEqual(['tiny:latest'])
    const lib = models.find((m) => m.id === 'tiny:latest')!
    expect(lib).toMatchObject({ source: 'ollama', path: join(store, 'blobs', model.replace(':', '-')), sizeBytes: tiny.length, ollamaTemplate: '{{ .Prompt }}' })
    expect(lib.ollamaParams).toEqual({ stop: ['<|im_end|>'], num_ctx: 4096 })
  })

  it('reports, not throws, an Ollama manifest whose model blob is missing, and still lists the others', async () => {
    const store = join(home, 'ollama-store')
    const good = blob(store, tiny)
    manifest(store, ['registry.ollama.ai', 'library', 'good'], 'latest', [{ mediaType: OLLAMA_MODEL_MEDIA_TYPE, digest: good }])
    manifest(store, ['registry.ollama.ai', 'library', 'gone'], '7b', [{ mediaType: OLLAMA_MODEL_MEDIA_TYPE, digest: `sha256:${'0'.repeat(64)}` }])
    mkdirSync(join(store, 'manifests', 'registry.ollama.ai', 'library', 'broken'), { recursive: true })
    writeFileSync(join(store, 'manifests', 'registry.ollama.ai', 'library', 'broken', 'latest'), '{not json')
    const { models, problems } = await discoverModels({ home, env: { OLLAMA_MODELS: store } })
    expect(models.map((m) => m.id)).toEqual(['good:latest'])
    expect(problems).toHaveLength(2)
    const gone = problems.find((p) => p.name === 'gone:7b')!
    expect(gone.message).toMatch(/missing/)
    expect(gone.message).toContain('ollama pull gone:7b')
    expect(problems.find((p) => p.name === 'broken:latest')!.message).toMatch(/not readable/)
  })

  it("finds LM Studio's models (both folders), groups split parts, and attaches a vision projector", async () => {
    const lm = join(home, '.lmstudio', 'models', 'pub', 'repo')
    mkdirSync(lm, { recursive: true })
    writeFileSync(join(lm, 'model-Q4.gguf'), tiny)
    writeFileSync(join(lm, 'mmproj-model-f16.gguf'), tiny)
    const cache = join(home, '.cache', 'lm-studio', 'models', 'pub', 'big')
    mkdirSync(cache, { recursive: true })
    writeFileSync(join(cache, 'big-00001-of-00002.gguf'), Buffer.alloc(100))
    writeFileSync(join(cache, 'big-00002-of-00002.gguf'), Buffer.alloc(50))
    const { models } = await discoverModels({ home, env: {} })
    expect(models).toHaveLength(2)
    const q4 = models.find((m) => m.name === 'model-Q4')!
    expect(q4).toMatchObject({ source: 'lmstudio', projectorPath: join(lm, 'mmproj-model-f16.gguf') })
    const big = models.find((m) => m.name === 'big')!
    expect(big).toMatchObject({ path: join(cache, 'big-00001-of-00002.gguf'), sizeBytes: 150 })
  })

  it('finds user files and folders and the app models folder; a missing user path is a problem; clashing ids get a source prefix', async () => {
    const data = join(home, 'data')
    mkdirSync(join(data, 'models', 'org'), { recursive: true })
    writeFileSync(join(data, 'models', 'org', 'tiny.gguf'), tiny)
    const folder = join(home, 'mine')
    mkdirSync(join(folder, 'nested'), { recursive: true })
    writeFileSync(join(folder, 'nested', 'tiny.gguf'), Buffer.concat([tiny, Buffer.from('x')]))
    writeFileSync(join(folder, 'notes.txt'), 'not a model')
    const single = join(home, 'single.gguf')
    writeFileSync(single, tiny)
    symlinkSync(join(home, 'nowhere.gguf'), join(folder, 'dangling.gguf'))
    const { models, problems } = await discoverModels({ home, env: {}, dataDir: data, userPaths: [single, folder, join(home, 'moved.gguf')] })
    expect(models.map((m) => [m.id, m.source])).toEqual([
      ['single', 'user'],
      ['tiny', 'user'],
      ['org/tiny', 'library']
    ])
    expect(problems).toEqual([expect.objectContaining({ source: 'user', path: join(home, 'moved.gguf') })])
    // Adding the app's own models folder as a user folder lists each file once.
    const again = await discoverModels({ home, env: {}, dataDir: data, userPaths: [join(data, 'models')] })
    expect(again.models).toHaveLength(1)
    // Two different files with the same name: the second gets its source as a prefix.
    const other = join(home, 'other')
    mkdirSync(join(other, 'a'), { recursive: true })
    mkdirSync(join(other, 'b'), { recursive: true })
    writeFileSync(join(other, 'a', 'same.gguf'), tiny)
    writeFileSync(join(other, 'b', 'same.gguf'), tiny)
    const clash = await discoverModels({ home, env: {}, userPaths: [other] })
    expect(clash.models.map((m) => m.id)).toEqual(['same', 'user:same'])
  })

  it("lists the Ollama models the library pulled into the app's own store (<data>/models/ollama) as the app's, one library with the files downloaded from Hugging Face", async () => {
    const data = join(home, 'data')
    const store = join(data, 'models', 'ollama')
    const digest = blob(store, tiny)
    manifest(store, ['registry.ollama.ai', 'library', 'tiny'], 'latest', [{ mediaType: OLLAMA_MODEL_MEDIA_TYPE, digest }])
    manifest(store, ['registry.ollama.ai', 'library', 'broken'], 'latest', [{ mediaType: OLLAMA_MODEL_MEDIA_TYPE, digest: `sha256:${'1'.repeat(64)}` }])
    mkdirSync(join(data, 'models', 'hf', 'org'), { recursive: true })
    writeFileSync(join(data, 'models', 'hf', 'org', 'small.gguf'), tiny)
    const { models, problems } = await discoverModels({ home, env: {}, dataDir: data })
    expect(models.map((m) => [m.id, m.source, m.path])).toEqual([
      ['hf/org/small', 'library', join(data, 'models', 'hf', 'org', 'small.gguf')],
      ['tiny:latest', 'library', join(store, 'blobs', digest.replace(':', '-'))]
    ])
    expect(problems).toEqual([expect.objectContaining({ source: 'library', name: 'broken:latest' })])
    expect(problems[0]!.message).toContain('Pull it again from the model library')
  })
})
