import { describe, expect, it } from 'vitest'
import { ObjectTooLarge, readLimited, SyncStoreError } from '../../../src/core/sync/store'

/** A body as a server streams it: `pieces` pieces of `size` bytes; counts what was taken and whether it was dropped. */
function body(pieces: number, size: number) {
  const seen = { taken: 0, destroyed: false }
  const stream = {
    seen,
    destroy: () => void (seen.destroyed = true),
    async *[Symbol.asyncIterator]() {
      for (let i = 0; i < pieces; i++) {
        seen.taken++
        yield new Uint8Array(size).fill(i)
      }
    }
  }
  return stream
}

describe('readLimited', () => {
  it('a body without a length: gathered whole when within the limit', async () => {
    const b = body(3, 10)
    const out = await readLimited('blobs/x', b, undefined, 30)
    expect([...out]).toEqual([...Array(10).fill(0), ...Array(10).fill(1), ...Array(10).fill(2)])
  })

  it('a body without a length that goes past the limit: stops at the piece that crosses it', async () => {
    const b = body(1000, 10)
    await expect(readLimited('segments/d/1.seg', b, undefined, 25)).rejects.toBeInstanceOf(ObjectTooLarge)
    expect(b.seen.taken).toBe(3)
  })

  it('a declared length over the limit: refused before a byte is read, the connection dropped', async () => {
    const b = body(5, 10)
    const error = await readLimited('snapshots/s.snap', b, 50, 49).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ObjectTooLarge)
    expect((error as Error).message).toContain('snapshots/s.snap')
    expect(b.seen).toEqual({ taken: 0, destroyed: true })
  })

  it('a declared length: read into one buffer of that size; more than declared is an error', async () => {
    expect((await readLimited('k', body(4, 8), 32, 100)).byteLength).toBe(32)
    const error = await readLimited('k', body(5, 8), 32, 100).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(SyncStoreError)
    expect(error).not.toBeInstanceOf(ObjectTooLarge)
  })
})
