import type { Feature } from '../feature'
import type { Store } from '../store'
import type { Secrets } from '../secrets'
import type { DetectionService } from '../local/detection-service'
import { isUnavailable, type Unavailable } from '../unavailable'
import type { BuiltinEngine } from '../engine'
import { createBuiltinRuntimeWith } from '../runtime/providers/builtin/builtin-runtime'
import { runtimeError } from '../runtime/runtime-error'
import { AppErrorException } from '../../shared/errors/app-error'
import { ProviderService } from './provider-service'
import { providerHandlers, type ProviderProcedures } from './handlers'

interface Deps {
  env: { keyEnv?: NodeJS.ProcessEnv | undefined }
  local: { detection: DetectionService }
  store: Store
  secrets: Secrets
  engine: BuiltinEngine | Unavailable
}

/** Providers, their keys and models; every runtime comes from here. */
export const providersFeature: Feature<Deps, { providers: ProviderService }, ProviderProcedures> = {
  create: ({ env, local, store, secrets, engine }) => {
    // "Local (built-in)" runs on the root's engine; an unavailable one answers every request with its reason.
    const builtin = createBuiltinRuntimeWith(() => {
      if (isUnavailable(engine)) throw new AppErrorException(runtimeError('ProviderServiceUnavailable', `The built-in engine is not available: ${engine.reason}.`, 'builtin'))
      return engine
    })
    return { providers: new ProviderService(store, secrets, local.detection, env.keyEnv, { builtin }) }
  },
  handlers: (use) => providerHandlers(use('providers', 'Provider settings'))
}
