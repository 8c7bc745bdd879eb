import { mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { readGgufFile } from '../../src/core/gguf/gguf-header'
import { ModelsLibrary } from '../../src/core/models-library/library-service'
import { startFakeHfHub, type FakeHub } from '../fixtures/fake-hf-hub/server'
import { knownHeader, writeGguf, shapeMetadata, KNOWN_SHAPES } from '../fixtures/gguf-headers/write-gguf'

// A GGUF header is a few MB for a large vocabulary (Llama 3: 128k tokens). It is read once:
// again only when the file changed, and a longer prefix asks only for the bytes not read yet.

const header = knownHeader('llama-3-8b')

/** Bytes this process has read through read(2) so far (the kernel's count, page cache included). */
const bytesRead = () => Number(/rchar: (\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))![1])

let hub: FakeHub | undefined
const libraries: ModelsLibrary[] = []
afterEach(async () => {
  for (const l of libraries.splice(0)) await l.close()
  await hub?.close()
  hub = undefined
})

describe('the GGUF header is read once', () => {
  it('a file on disk is read again only when its size or modification time changed', async () => {
    expect(header.length).toBeGreaterThan(2 * 1024 * 1024)
    const path = join(mkdtempSync(join(tmpdir(), 'sb-hdr-')), 'llama.gguf')
    writeFileSync(path, header)
    const first = bytesRead()
    const a = await readGgufFile(path)
    const afterFirst = bytesRead()
    expect(afterFirst - first).toBeGreaterThanOrEqual(header.length)
    const b = await readGgufFile(path)
    expect(bytesRead() - afterFirst).toBeLessThan(64 * 1024)
    expect(b.metadata['general.name']).toBe(a.metadata['general.name'])
    // Another file at the same path: read again.
    writeFileSync(path, writeGguf(shapeMetadata({ ...KNOWN_SHAPES['tiny']!, name: 'changed' })))
    utimesSync(path, new Date(), new Date(Date.now() + 5000))
    expect((await readGgufFile(path)).metadata['general.name']).toBe('changed')
  })

  it('the files view reads a hub file\'s header once, growing by the missing bytes only', async () => {
    hub = await startFakeHfHub([{ id: 'meta/Llama-3-8B-GGUF', files: [{ path: 'llama-3-8b-Q4_K_M.gguf', content: header, listedSize: 4_920_000_000 }] }])
    const dataDir = mkdtempSync(join(tmpdir(), 'sb-hdr-'))
    const lib = new ModelsLibrary({ dataDir, folders: { dataDir }, memory: () => ({ freeRamBytes: 16e9 }), hubEndpoint: hub.url })
    libraries.push(lib)
    const reads = () => hub!.stats.requests.filter((r) => r.range)
    const first = await lib.repo('meta/Llama-3-8B-GGUF')
    expect(first.shape?.blockCount).toBe(32)
    const ranges = reads().map((r) => Number(/bytes=(\d+)-/.exec(r.range!)![1]))
    expect(ranges.length).toBeGreaterThan(1)
    // Each growth starts where the bytes read so far end, never at byte 0 again.
    expect(ranges.filter((start) => start === 0)).toHaveLength(1)
    const count = reads().length
    const again = await lib.repo('meta/Llama-3-8B-GGUF')
    expect(again.shape).toEqual(first.shape)
    expect(reads()).toHaveLength(count)
  })
})
