import type { CoreContext } from '../context'
import type { InitStep } from '../services/init-service'
import { createAppGatewayBackend } from './app-backend'
import { GatewayService } from './gateway-service'

/** Builds the local API once providers and the store exist, and starts it when Settings has it on. */
export function gatewayInitStep(context: CoreContext, listen?: { host?: string; port?: number; serve?: boolean }): InitStep {
  return {
    phase: 'migrating',
    run() {
      const store = context.store
      const providers = context.providers
      if (!store || !providers) throw new Error('The local data could not be opened, so the local API cannot start.')
      context.gateway = new GatewayService({
        settings: store.settings,
        backend: createAppGatewayBackend({ providers, usage: store.usage }),
        // A remote browser-mode client may use the app, never widen what the host serves.
        mayChange: () => !(context.mode === 'browser' && context.access?.password),
        ...(listen ? { listen } : {})
      })
      // Not awaited: a port in use must not hold start-up; the status says why it is not running.
      void context.gateway.apply()
    }
  }
}
