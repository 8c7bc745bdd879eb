import { describe, expect, it } from 'vitest'
import { chooseEngineSpawn, engineSpawner } from '../../../src/core/engine/engine-process'

describe('how the engine process starts (policy as data: Electron cannot run here)', () => {
  it.each([
    [{ electron: true, utilityProcess: true }, 'utility-process'],
    // Never a fork of the app binary under Electron: runAsNode is fused off, so it would start the app.
    [{ electron: true, utilityProcess: false }, 'none'],
    [{ electron: false, utilityProcess: false }, 'child-process'],
    [{ electron: false, utilityProcess: true }, 'child-process']
  ] as const)('%o → %s', (shell, choice) => {
    expect(chooseEngineSpawn(shell)).toBe(choice)
  })
})

describe('engineSpawner', () => {
  it('under Electron starts the shell’s utility process, and without one refuses with the reason', () => {
    const utility = { kind: 'utility process', spawn: () => ({}) as never }
    expect(engineSpawner({ entry: '/app/out/main/engine-host.js', electron: true, utilityProcess: () => utility })).toBe(utility)
    const none = engineSpawner({ entry: '/app/out/main/engine-host.js', electron: true })
    expect(() => none.spawn()).toThrow(/utility process/)
    expect(engineSpawner({ entry: '/app/out/main/engine-host.js', electron: false }).kind).toBe('child process')
  })
})
