import type { PickerGroup } from '../../../shared/bridge/procedures/providers'

/**
 * The model pickers' one filter: without a query, the enabled models; a query searches every
 * model of every provider by display name, id and provider name.
 */
export function filterPickerGroups(groups: readonly PickerGroup[], query: string): PickerGroup[] {
  const q = query.trim().toLowerCase()
  return groups
    .map((g) => ({ ...g, models: q ? g.models.filter((m) => `${m.displayName} ${m.id} ${g.provider.name}`.toLowerCase().includes(q)) : g.models.filter((m) => m.enabled) }))
    .filter((g) => g.models.length > 0)
}
