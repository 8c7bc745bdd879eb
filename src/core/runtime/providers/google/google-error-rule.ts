import type { ProviderErrorRule, ProviderErrorRules } from '../../errors/map-provider-error'

/** Google and Vertex AI answer a region block, a bad key and an exhausted quota in their own words. */
export const googleErrorRule: ProviderErrorRule = (facts) => {
  if (/location is not supported/i.test(facts.message)) return { errorType: 'LocationNotSupportError' }
  if (facts.status === 400 && /API key not valid/i.test(facts.message)) return { errorType: 'InvalidProviderAPIKey' }
  if (facts.status === 429) return { errorType: 'QuotaLimitReached' }
  return undefined
}

/** Google's and Vertex AI's rules as their specs and their runtime's error mapping both use them. */
export const googleErrorRules: ProviderErrorRules = { mapError: googleErrorRule, errorFallback: 'ProviderBizError' }
