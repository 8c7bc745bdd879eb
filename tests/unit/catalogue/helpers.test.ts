import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { AppErrorException } from '../../../src/shared/errors/app-error'
import { parseDataUrl } from '../../../src/shared/utils/data-url'
import { imageUrlToBase64 } from '../../../src/shared/utils/image-url-to-base64'
import { randomId } from '../../../src/shared/utils/random-id'
import { safeParseJson } from '../../../src/shared/utils/safe-json'

describe('data-URL helper (product.md §5)', () => {
  it('returns the base64 part and the mime type of data:{mime};base64,{data}', () => {
    expect(parseDataUrl('data:image/jpeg;base64,AAAA')).toEqual({ type: 'base64', base64: 'AAAA', mimeType: 'image/jpeg' })
  })
  it('uses image/png when the mime type is empty', () => {
    expect(parseDataUrl('data:;base64,AAAA')).toEqual({ type: 'base64', base64: 'AAAA', mimeType: 'image/png' })
  })
  it('gives a valid absolute URL the type url', () => {
    expect(parseDataUrl('https://example.com/cat.png').type).toBe('url')
  })
  it('gives anything else no type', () => {
    expect(parseDataUrl('/relative/cat.png').type).toBeNull()
    expect(parseDataUrl('not a url').type).toBeNull()
    expect(parseDataUrl('cat.png').type).toBeNull()
  })
})

describe('JSON helper (product.md §5)', () => {
  it('returns nothing when the input is not a string or does not parse', () => {
    expect(safeParseJson(42)).toBeUndefined()
    expect(safeParseJson(null)).toBeUndefined()
    expect(safeParseJson('{"a":')).toBeUndefined()
    expect(safeParseJson('{"a":1}')).toEqual({ a: 1 })
  })
})

describe('random id (product.md §9)', () => {
  it('is 8 characters of digits and letters by default', () => {
    const ids = Array.from({ length: 200 }, () => randomId())
    for (const id of ids) expect(id).toMatch(/^[0-9A-Za-z]{8}$/)
    expect(new Set(ids).size).toBe(200)
    expect(randomId(20)).toHaveLength(20)
    expect(() => randomId(0)).toThrow(RangeError)
  })
})

describe('image URL → base64 + mime', () => {
  let server: Server
  let base: string
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3])
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/cat.png') {
        res.writeHead(200, { 'content-type': 'image/png; charset=binary' })
        res.end(png)
      } else {
        res.writeHead(404)
        res.end()
      }
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  it('fetches with the given fetch and returns base64 and the mime type', async () => {
    expect(await imageUrlToBase64(`${base}/cat.png`, fetch)).toEqual({ base64: png.toString('base64'), mimeType: 'image/png' })
  })
  it('passes a data URL through without fetching', async () => {
    const noFetch = () => Promise.reject(new Error('must not fetch'))
    expect(await imageUrlToBase64('data:image/webp;base64,QUJD', noFetch)).toEqual({ base64: 'QUJD', mimeType: 'image/webp' })
  })
  it("fails with a typed 'Failed to fetch image' error", async () => {
    const missing = await imageUrlToBase64(`${base}/missing.png`, fetch).catch((e: unknown) => e)
    expect(missing).toBeInstanceOf(AppErrorException)
    expect((missing as AppErrorException).error).toMatchObject({ message: 'Failed to fetch image: HTTP 404', status: 404 })
    const bad = await imageUrlToBase64('nope', fetch).catch((e: unknown) => e)
    expect((bad as AppErrorException).error.message).toContain('Failed to fetch image')
  })
  it('logs a failed conversion, then rethrows the same error (product.md §7)', async () => {
    const logged: unknown[][] = []
    const spy = vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void logged.push(args))
    try {
      const thrown = await imageUrlToBase64(`${base}/missing.png`, fetch).catch((e: unknown) => e)
      expect(logged).toHaveLength(1)
      expect(String(logged[0]![0])).toContain(`${base}/missing.png`)
      // The very error the caller receives is the one logged.
      expect(logged[0]![1]).toBe(thrown)
    } finally {
      spy.mockRestore()
    }
  })
})
