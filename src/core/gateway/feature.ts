import type { Feature, ProceduresOf } from '../feature'
import type { Store } from '../store'
import type { AccessPolicy } from '../bridge/session'
import type { ProviderService } from '../providers/provider-service'
import type { ModelCaller } from '../caller/model-caller'
import { clientReach } from '../security/client-policy'
import type { BuiltinEngine } from '../engine'
import type { Unavailable } from '../unavailable'
import { GatewayService } from './gateway-service'
import { createAppGatewayBackend } from './app-backend'
import { localApiHandlers } from './handlers'

interface Deps {
  env: { mode: 'desktop' | 'browser' | 'test'; access?: AccessPolicy | undefined; localApi?: { host?: string; port?: number; serve?: boolean } | undefined }
  store: Store
  providers: ProviderService
  caller: ModelCaller
  engine: BuiltinEngine | Unavailable
}

/** The local API: every model to other programs, through the one caller. */
export const gatewayFeature: Feature<Deps, { gateway: GatewayService }, ProceduresOf<'localApi'>> = {
  create: ({ env, store, providers, caller, engine }) => ({
    gateway: new GatewayService({
      settings: store.settings,
      backend: createAppGatewayBackend({ caller, providers, usage: store.usage, builtin: engine }),
      // A remote browser-mode client may use the app, never widen what the host serves.
      mayChange: () => clientReach(env) !== 'remote',
      ...(env.localApi ? { listen: env.localApi } : {})
    })
  }),
  handlers: (use) => localApiHandlers(use('gateway', 'The local API')),
  // Not awaited: a port in use must not hold start-up; the status says why it is not running.
  start: ({ gateway }) => void gateway.apply(),
  close: ({ gateway }) => gateway.close()
}
