import { nativeSpec } from '../../provider-spec'
import { createAnthropicRuntime } from './anthropic-runtime'
import { anthropicErrorRules } from './anthropic-error-rule'

/** Anthropic: a 403 is the region block (providers.md §8); server tools go through unchanged. */
export const anthropicSpec = nativeSpec({
  id: 'anthropic',
  factory: createAnthropicRuntime,
  nativeApi: () => 'anthropic-messages',
  ...anthropicErrorRules
})
