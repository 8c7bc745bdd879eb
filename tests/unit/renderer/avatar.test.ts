import { describe, expect, it } from 'vitest'
import { centredSquare } from '../../../src/renderer/features/chat/avatar'

describe('avatar crop', () => {
  it('takes the centred square of a landscape picture', () => {
    expect(centredSquare(400, 200)).toEqual({ sx: 100, sy: 0, size: 200 })
  })
  it('takes the centred square of a portrait picture', () => {
    expect(centredSquare(300, 501)).toEqual({ sx: 0, sy: 100, size: 300 })
  })
  it('keeps a square as it is', () => {
    expect(centredSquare(64, 64)).toEqual({ sx: 0, sy: 0, size: 64 })
  })
})
