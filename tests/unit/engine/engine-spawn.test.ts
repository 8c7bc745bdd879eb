import { describe, expect, it } from 'vitest'
import { chooseEngineSpawn } from '../../../src/core/engine/engine-process'

describe('how the engine process starts (policy as data: Electron cannot run here)', () => {
  it.each([
    [{ electron: true, utilityProcess: true }, 'utility-process'],
    [{ electron: true, utilityProcess: false }, 'child-process'],
    [{ electron: false, utilityProcess: false }, 'child-process'],
    [{ electron: false, utilityProcess: true }, 'child-process']
  ] as const)('%o → %s', (shell, choice) => {
    expect(chooseEngineSpawn(shell)).toBe(choice)
  })
})
