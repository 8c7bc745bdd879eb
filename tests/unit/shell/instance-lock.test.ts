import { describe, expect, it } from 'vitest'
import { decideLaunch, focusActions } from '../../../src/main/policy/instance-lock'

describe('desktop launch: one app per profile, one process per data folder', () => {
  it('a second launch of the app quits (the first focuses itself) without even looking at the data folder', () => {
    let asked = false
    expect(decideLaunch(false, () => ((asked = true), { ok: true }))).toEqual({ action: 'quit' })
    expect(asked).toBe(false)
  })

  it('when something else holds the data folder, refuses with its message', () => {
    const message = 'The data folder /d is already in use by another Switchboard (browser mode (npm run serve), process 42).'
    expect(decideLaunch(true, () => ({ ok: false, message }))).toEqual({ action: 'refuse', title: 'Switchboard is already using this data folder', message })
  })

  it('runs when both locks are ours', () => {
    expect(decideLaunch(true, () => ({ ok: true }))).toEqual({ action: 'run' })
  })

  it('the running window restores, shows and focuses itself as needed', () => {
    expect(focusActions(undefined)).toEqual([])
    expect(focusActions({ minimized: true, visible: true })).toEqual(['restore', 'focus'])
    expect(focusActions({ minimized: false, visible: false })).toEqual(['show', 'focus'])
  })
})
