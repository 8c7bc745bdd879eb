import { describe, expect, it } from 'vitest'
import { dataUrlBytes, fitSize } from '../../../src/renderer/features/attachments/fit-size'

describe('fitSize', () => {
  it('keeps an image within the edge as it is', () => {
    expect(fitSize(1024, 768, 2048)).toEqual({ width: 1024, height: 768, scaled: false })
    expect(fitSize(2048, 10, 2048).scaled).toBe(false)
  })

  it('scales the longest side down to the edge, keeping the aspect ratio', () => {
    expect(fitSize(4000, 3000, 2048)).toEqual({ width: 2048, height: 1536, scaled: true })
    expect(fitSize(1000, 5000, 1568)).toEqual({ width: 314, height: 1568, scaled: true })
    expect(fitSize(100_000, 1, 1000)).toEqual({ width: 1000, height: 1, scaled: true })
  })
})

describe('dataUrlBytes', () => {
  it('gives the decoded size of a base64 data URL, padding included', () => {
    for (const n of [0, 1, 2, 3, 10, 1000]) {
      const url = `data:image/png;base64,${btoa(String.fromCharCode(...new Uint8Array(n).fill(7)))}`
      expect(dataUrlBytes(url)).toBe(n)
    }
  })
})
