import { nativeSpec } from '../../provider-spec'
import { createAnthropicRuntime } from './anthropic-runtime'

/** Anthropic: a 403 is the region block (providers.md §8). */
export const anthropicSpec = nativeSpec({
  id: 'anthropic',
  factory: createAnthropicRuntime,
  mapError: (facts) => (facts.status === 403 ? { errorType: 'LocationNotSupportError' } : undefined)
})
