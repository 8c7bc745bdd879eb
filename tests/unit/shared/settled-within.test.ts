import { describe, expect, it } from 'vitest'
import { settledWithin } from '../../../src/shared/utils/settled-within'

const after = <T>(ms: number, value: T, fail = false) => new Promise<T>((resolve, reject) => setTimeout(() => (fail ? reject(value) : resolve(value)), ms))

describe('settledWithin', () => {
  it('is true when the work ends in time, whether it succeeds or fails', async () => {
    expect(await settledWithin(after(5, 'done'), 200)).toBe(true)
    expect(await settledWithin(after(5, new Error('failed'), true), 200)).toBe(true)
  })

  it('is false when the work is still running at the deadline, and answers at the deadline', async () => {
    const started = Date.now()
    expect(await settledWithin(new Promise(() => undefined), 50)).toBe(false)
    expect(Date.now() - started).toBeLessThan(1_000)
  })

  it('leaves no timer behind once the work has ended', async () => {
    const before = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length
    await settledWithin(Promise.resolve(), 60_000)
    expect(process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length).toBe(before)
  })
})
