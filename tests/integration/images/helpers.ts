import { expect } from 'vitest'
import { AppErrorException, type AppError } from '../../../src/shared/errors/app-error'

export const KEY = 'sk-image-test-SECRET-1234567890'

/** Awaits a promise that must reject with a catalogue error; returns that error. */
export async function failure(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise
  } catch (error) {
    expect(error).toBeInstanceOf(AppErrorException)
    const e = (error as AppErrorException).error
    expect(JSON.stringify(e)).not.toContain(KEY)
    return e
  }
  throw new Error('expected the call to fail')
}
