import { nativeSpec } from '../../provider-spec'
import { createBuiltinRuntime } from './builtin-runtime'

/** Local (built-in): the app's own engine; no key, no server. */
export const builtinSpec = nativeSpec({ id: 'builtin', usesApiKey: false, factory: createBuiltinRuntime })
