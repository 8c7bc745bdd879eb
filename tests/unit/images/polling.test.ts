import { describe, expect, it, vi } from 'vitest'
import { IMAGE_POLLING_DEFAULTS, pollTask } from '../../../src/core/runtime/images/polling'
import { AppErrorException } from '../../../src/shared/errors/app-error'

/** Runs pollTask under fake timers and records every wait it asked for. */
async function waitsOf(outcomes: Array<'pending' | 'fail' | 'done'>, options = {}) {
  const waits: number[] = []
  const real = globalThis.setTimeout
  // Record the wait asked for, then run it at once: the schedule is what is under test.
  const spy = vi.spyOn(globalThis, 'setTimeout').mockImplementation(((fn: () => void, ms: number) => {
    waits.push(ms)
    return real(fn, 0)
  }) as typeof setTimeout)
  let i = 0
  try {
    const value = await pollTask({
      provider: 'p',
      isFinal: () => false,
      options,
      poll: async () => {
        const o = outcomes[i++] ?? 'pending'
        if (o === 'fail') throw new Error('transient')
        return o === 'done' ? { done: true as const, value: 'ok' } : { done: false as const }
      }
    })
    return { waits, value }
  } finally {
    spy.mockRestore()
  }
}

describe('image task polling (providers.md §7)', () => {
  it('starts at 500 ms, grows by 1.5 and stops growing at 5000 ms', async () => {
    const { waits, value } = await waitsOf([...Array(9).fill('pending'), 'done'])
    expect(value).toBe('ok')
    expect(waits).toEqual([500, 750, 1125, 1687.5, 2531.25, 3796.875, 5000, 5000, 5000, 5000])
    expect(IMAGE_POLLING_DEFAULTS).toMatchObject({ initialMs: 500, factor: 1.5, maxMs: 5000, maxConsecutiveFailures: 3 })
  })

  it('three failures in a row are tolerated, the fourth is thrown', async () => {
    await expect(waitsOf(['fail', 'fail', 'fail', 'done'])).resolves.toMatchObject({ value: 'ok' })
    await expect(waitsOf(['fail', 'fail', 'fail', 'fail'])).rejects.toThrow('transient')
  })

  it('gives up with Task timeout after N attempts', async () => {
    const error = await waitsOf([], { maxAttempts: 3 }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(AppErrorException)
    expect((error as AppErrorException).error.message).toBe('Task timeout after 3 attempts')
  })

  it('a final error ends polling at once', async () => {
    let polls = 0
    const final = new AppErrorException({ errorType: 'ProviderBizError', message: 'done for' })
    await expect(
      pollTask({ provider: 'p', isFinal: (e) => e === final, options: { initialMs: 0 }, poll: async () => { polls++; throw final } })
    ).rejects.toBe(final)
    expect(polls).toBe(1)
  })
})
