import { describe, expect, it, vi } from 'vitest'
import { InitService } from '../../../src/core/services/init-service'
import type { InitState } from '../../../src/shared/app/init-state'

const phases = (states: readonly InitState[]) => states.map((s) => s.phase)

describe('start-up states', () => {
  it('goes idle → initializing → loadingDependencies → migrating → finished → ready, in the spec’s order', async () => {
    const init = new InitService([
      { phase: 'loadingDependencies', run: () => undefined },
      { phase: 'migrating', run: () => ['Your database was restored from a backup.'] }
    ])
    const final = await init.start()
    expect(phases(init.states)).toEqual(['idle', 'initializing', 'loadingDependencies', 'migrating', 'finished', 'ready'])
    expect(final.notices).toEqual(['Your database was restored from a backup.'])
  })

  it('stops at error with the reason, and a retry starts again from idle', async () => {
    let attempts = 0
    const init = new InitService([
      {
        phase: 'migrating',
        run: () => {
          attempts++
          if (attempts === 1) throw new Error('The data folder is read-only. Choose another folder or fix its permissions.')
        }
      }
    ])
    const failed = await init.start()
    expect(failed.phase).toBe('error')
    expect(failed.detail).toMatch(/read-only/)
    const retried = await init.retry()
    expect(retried.phase).toBe('ready')
    expect(phases(init.states)[0]).toBe('idle')
  })

  it('replays every state to a late subscriber and ends at the terminal state', async () => {
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    const init = new InitService([{ phase: 'migrating', run: () => gate }])
    void init.start()
    const seen: string[] = []
    const done = (async () => {
      for await (const state of init.progress()) seen.push(state.phase)
    })()
    await vi.waitFor(() => expect(seen).toEqual(['idle', 'initializing', 'migrating']))
    release()
    await done
    expect(seen).toEqual(['idle', 'initializing', 'migrating', 'finished', 'ready'])
  })
})
