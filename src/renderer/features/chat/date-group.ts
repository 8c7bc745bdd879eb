const DAY = 86_400_000

/** Which heading a conversation sits under: pinned first, then by its last activity. */
export function dateGroup(c: { pinned?: boolean; updatedAt: number } | undefined, now = Date.now()): string {
  if (!c) return ''
  if (c.pinned) return 'pinned'
  const today = new Date(now)
  today.setHours(0, 0, 0, 0)
  const start = today.getTime()
  if (c.updatedAt >= start) return 'today'
  if (c.updatedAt >= start - DAY) return 'yesterday'
  if (c.updatedAt >= start - 7 * DAY) return 'week'
  if (c.updatedAt >= start - 30 * DAY) return 'month'
  const d = new Date(c.updatedAt)
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}`
}
