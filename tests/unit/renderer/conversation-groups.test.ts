import { describe, expect, it } from 'vitest'
import { dateGroup } from '../../../src/renderer/features/chat/date-group'

describe('conversation date groups (issue 16)', () => {
  const now = new Date(2026, 10, 23, 15, 0).getTime()
  const at = (y: number, m: number, d: number, h = 12) => new Date(y, m, d, h).getTime()
  it('puts pinned first, then Today, Yesterday, Previous 7 and 30 days, then months', () => {
    expect(dateGroup({ pinned: true, updatedAt: at(2020, 0, 1) }, now)).toBe('pinned')
    expect(dateGroup({ updatedAt: at(2026, 10, 23, 0) }, now)).toBe('today')
    expect(dateGroup({ updatedAt: at(2026, 10, 22, 23) }, now)).toBe('yesterday')
    expect(dateGroup({ updatedAt: at(2026, 10, 17) }, now)).toBe('week')
    expect(dateGroup({ updatedAt: at(2026, 10, 1) }, now)).toBe('month')
    expect(dateGroup({ updatedAt: at(2026, 7, 3) }, now)).toBe('2026-08')
  })
})
