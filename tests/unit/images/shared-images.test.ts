import { describe, expect, it } from 'vitest'
import { describeParameters, groupByPrompt } from '../../../src/shared/images/gallery'
import { imageDimensions, sniffImageMime } from '../../../src/shared/images/image-dimensions'
import { fileIdOfRef, fileRef } from '../../../src/shared/images/image-task'
import type { ImageGeneration } from '../../../src/shared/data/image-generation'
import { pngBytes } from '../../fixtures/fake-images/index'

const gif = (w: number, h: number) => new Uint8Array([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, w & 0xff, w >> 8, h & 0xff, h >> 8, 0, 0, 0])
/** A JPEG with an APP0 segment before its SOF0 frame header. */
const jpeg = (w: number, h: number) =>
  new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x4a, 0x46, 0xff, 0xc0, 0x00, 0x11, 0x08, h >> 8, h & 0xff, w >> 8, w & 0xff, 3, 0, 0, 0, 0, 0, 0])
const webpX = (w: number, h: number) => {
  const b = new Uint8Array(30)
  b.set([...'RIFF'].map((c) => c.charCodeAt(0)), 0)
  b.set([...'WEBPVP8X'].map((c) => c.charCodeAt(0)), 8)
  b.set([(w - 1) & 0xff, ((w - 1) >> 8) & 0xff, 0, (h - 1) & 0xff, ((h - 1) >> 8) & 0xff, 0], 24)
  return b
}

describe('image header dimensions', () => {
  it('reads PNG, JPEG, GIF and WebP (VP8X) sizes and sniffs their mime', () => {
    expect(imageDimensions(pngBytes(17, 9))).toEqual({ width: 17, height: 9 })
    expect(imageDimensions(jpeg(1792, 1024))).toEqual({ width: 1792, height: 1024 })
    expect(imageDimensions(gif(300, 200))).toEqual({ width: 300, height: 200 })
    expect(imageDimensions(webpX(1536, 1024))).toEqual({ width: 1536, height: 1024 })
    expect(imageDimensions(new Uint8Array([1, 2, 3]))).toBeUndefined()
    expect([pngBytes(), jpeg(1, 1), gif(1, 1), webpX(1, 1)].map(sniffImageMime)).toEqual(['image/png', 'image/jpeg', 'image/gif', 'image/webp'])
  })
})

const gen = (id: string, prompt: string, createdAt: number): ImageGeneration => ({
  id,
  prompt,
  parameters: {},
  providerId: 'p',
  modelId: 'm',
  status: 'Success',
  results: [],
  createdAt,
  updatedAt: createdAt
})

describe('gallery', () => {
  it('groups by prompt, newest group and newest image first', () => {
    const groups = groupByPrompt([gen('a', 'fox', 1), gen('b', 'owl', 2), gen('c', 'fox ', 3)])
    expect(groups.map((g) => [g.prompt, g.generations.map((x) => x.id)])).toEqual([
      ['fox', ['c', 'a']],
      ['owl', ['b']]
    ])
  })

  it('describes parameters briefly', () => {
    expect(describeParameters({ width: 1024, height: 768, seed: 5, steps: 28, cfg: 3 })).toBe('1024×768 · seed 5 · 28 steps · cfg 3')
    expect(describeParameters({ size: '1024x1024', aspectRatio: '1:1' })).toBe('1024x1024 · 1:1')
  })

  it('file refs round-trip', () => {
    expect(fileIdOfRef(fileRef('abc'))).toBe('abc')
    expect(fileIdOfRef('https://x/y.png')).toBeUndefined()
  })
})
