import { createServer } from 'node:http'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { GgufFormatError, GgufNeedMoreBytes, modelShape, parseGgufHeader, readGgufFile, readGgufRemote } from '../../../src/core/gguf/gguf-header'
import { KNOWN_SHAPES, knownHeader, shapeMetadata, writeGguf } from '../../fixtures/gguf-headers/write-gguf'

describe('GGUF header reader', () => {
  it('reads the shape of a Llama 3 8B header, whose 128k-token vocabulary is longer than the first read', async () => {
    const header = knownHeader('llama-3-8b')
    expect(header.length).toBeGreaterThan(2 * 1024 * 1024)
    const dir = mkdtempSync(join(tmpdir(), 'gguf-'))
    const path = join(dir, 'llama3.gguf')
    writeFileSync(path, Buffer.concat([header, Buffer.alloc(4096)]))
    const shape = modelShape(await readGgufFile(path))
    expect(shape).toMatchObject({ architecture: 'llama', blockCount: 32, embeddingLength: 4096, headCount: 32, headCountKv: 8, keyLength: 128, valueLength: 128, contextLength: 8192, vocabSize: 128256 })
    expect(shape.name).toBe('Meta Llama 3 8B Instruct')
  })

  it('asks for more bytes when the prefix ends inside the metadata, and parses once it has them', () => {
    const header = knownHeader('mistral-7b')
    let needed = 0
    try {
      parseGgufHeader(header.subarray(0, 1000))
    } catch (error) {
      expect(error).toBeInstanceOf(GgufNeedMoreBytes)
      needed = (error as GgufNeedMoreBytes).needed
    }
    expect(needed).toBeGreaterThan(1000)
    expect(modelShape(parseGgufHeader(header)).contextLength).toBe(32768)
  })

  it('refuses a file that is not GGUF, and a truncated one, with a clear error', async () => {
    expect(() => parseGgufHeader(Buffer.from('PK\u0003\u0004 not a model'))).toThrow(GgufFormatError)
    const dir = mkdtempSync(join(tmpdir(), 'gguf-'))
    writeFileSync(join(dir, 'cut.gguf'), knownHeader('tiny').subarray(0, 300))
    await expect(readGgufFile(join(dir, 'cut.gguf'))).rejects.toThrow(/truncated/)
    writeFileSync(join(dir, 'empty.gguf'), '')
    // An empty file is named as such (the engine says so before loading), not as truncated.
    await expect(readGgufFile(join(dir, 'empty.gguf'))).rejects.toMatchObject({ reason: 'empty', message: expect.stringMatching(/empty \(0 bytes\)/) })
    await expect(readGgufFile(join(dir, 'cut.gguf'))).rejects.toMatchObject({ reason: 'truncated' })
  })

  it('refuses a header whose counts are absurd instead of allocating them', () => {
    const bad = Buffer.concat([Buffer.from('GGUF'), Buffer.from([3, 0, 0, 0]), Buffer.alloc(8), Buffer.from([255, 255, 255, 255, 255, 255, 0, 0])])
    expect(() => parseGgufHeader(bad)).toThrow(GgufFormatError)
  })

  it('sums the weights from the tensor table', () => {
    const buf = writeGguf(shapeMetadata(KNOWN_SHAPES['tiny']!), [
      { name: 'token_embd.weight', dims: [64, 374], type: 0 },
      { name: 'output.weight', dims: [64, 374], type: 1 }
    ])
    const header = parseGgufHeader(buf, { withTensors: true })
    expect(header.tensorCount).toBe(2)
    expect(header.tensorBytes).toBe(64 * 374 * 4 + 64 * 374 * 2)
  })

  describe('over HTTP Range', () => {
    const ranges: string[] = []
    let url = ''
    const server = createServer((req, res) => {
      const body = Buffer.concat([knownHeader('qwen2.5-7b'), Buffer.alloc(3 * 1024 * 1024)])
      const range = /bytes=(\d+)-(\d+)/.exec(req.headers.range ?? '')
      ranges.push(req.headers.range ?? '')
      if (req.url === '/no-range' || !range) {
        res.writeHead(200, { 'Content-Length': body.length })
        res.end(body)
        return
      }
      const start = Number(range[1])
      const end = Math.min(Number(range[2]), body.length - 1)
      res.writeHead(206, { 'Content-Range': `bytes ${start}-${end}/${body.length}`, 'Content-Length': end - start + 1 })
      res.end(body.subarray(start, end + 1))
    })
    beforeAll(async () => {
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    })
    afterAll(() => new Promise<void>((r) => server.close(() => r())))

    it('grows the range until the metadata is whole (a 152k vocabulary is ~3 MB)', async () => {
      ranges.length = 0
      const shape = modelShape(await readGgufRemote(`${url}/model.gguf`))
      expect(shape).toMatchObject({ architecture: 'qwen2', blockCount: 28, headCountKv: 4, vocabSize: 152064 })
      expect(ranges.length).toBeGreaterThan(1)
      expect(ranges[0]).toBe('bytes=0-2097151')
    })

    it('reads only the asked prefix when the server ignores Range', async () => {
      const shape = modelShape(await readGgufRemote(`${url}/no-range`))
      expect(shape.architecture).toBe('qwen2')
    })

    it('says which status the server gave for a missing file', async () => {
      const missing = createServer((_req, res) => res.writeHead(404).end())
      await new Promise<void>((r) => missing.listen(0, '127.0.0.1', r))
      const port = (missing.address() as AddressInfo).port
      await expect(readGgufRemote(`http://127.0.0.1:${port}/x.gguf`)).rejects.toThrow(/404/)
      await new Promise<void>((r) => missing.close(() => r()))
    })
  })
})
