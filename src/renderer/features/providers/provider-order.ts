import type { ProviderSummary } from '../../../shared/bridge/procedures/providers'

/** Configured cloud providers and local servers first, then the rest; each part by display name. */
export function orderProviders(providers: readonly ProviderSummary[], query: string, locale: string): { pinned: ProviderSummary[]; rest: ProviderSummary[] } {
  const q = query.trim().toLowerCase()
  // A custom provider is also found as what it is: "custom", "compatible".
  const matches = (p: ProviderSummary) => p.name.toLowerCase().includes(q) || p.id.includes(q) || (p.custom !== undefined && 'custom openai-compatible'.includes(q))
  const shown = providers.filter((p) => !q || matches(p))
  const byName = (a: ProviderSummary, b: ProviderSummary) => a.name.localeCompare(b.name, locale, { sensitivity: 'base' })
  const isPinned = (p: ProviderSummary) => p.local || p.hasKey || (!p.usesApiKey && p.available)
  return { pinned: shown.filter(isPinned).sort(byName), rest: shown.filter((p) => !isPinned(p)).sort(byName) }
}
