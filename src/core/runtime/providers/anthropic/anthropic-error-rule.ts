import type { ProviderErrorRules } from '../../errors/map-provider-error'

/** Anthropic: a 403 is the region block (providers.md §8). */
export const anthropicErrorRules: ProviderErrorRules = {
  mapError: (facts) => (facts.status === 403 ? { errorType: 'LocationNotSupportError' } : undefined)
}
