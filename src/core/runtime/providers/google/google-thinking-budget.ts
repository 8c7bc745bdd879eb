/**
 * Gemini thinking budgets (providers.md §5): 2.5-pro 128–32768 or −1 (dynamic, it cannot
 * turn thinking off); 2.5-flash-lite 512–24576, 0 (off) or −1; other models capped at 24576.
 */
export function clampThinkingBudget(model: string, budget: number | undefined): number | undefined {
  if (budget === undefined) return undefined
  const id = model.toLowerCase()
  if (budget === -1) return -1
  if (id.includes('2.5-pro')) return Math.min(32768, Math.max(128, budget))
  if (id.includes('2.5-flash-lite')) {
    if (budget === 0) return 0
    return Math.min(24576, Math.max(512, budget))
  }
  return Math.min(24576, Math.max(0, budget))
}

/** Models that accept thinkingConfig (Gemini 2.5 and later; older ones reject the field). */
export const supportsThinking = (model: string): boolean => /gemini-(2\.5|[3-9])|thinking/i.test(model)
