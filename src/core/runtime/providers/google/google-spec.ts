import { nativeSpec } from '../../provider-spec'
import { googleErrorRules } from './google-error-rule'
import { createGoogleRuntime } from './google-runtime'

/** Google Gemini: its own error words; any other HTTP failure is a ProviderBizError (no status buckets). */
export const googleSpec = nativeSpec({ id: 'google', factory: createGoogleRuntime, ...googleErrorRules })
