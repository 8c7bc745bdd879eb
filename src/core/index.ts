import { mkdirSync } from 'node:fs'
import { contract, type Contract } from '../shared/bridge/contract'
import { Router } from './bridge/router'
import { appHandlers } from './bridge/handlers/app'
import type { AccessPolicy } from './bridge/session'
import { InitService, type InitStep } from './services/init-service'
import type { CoreContext } from './context'
import { APP_VERSION } from './version'

export interface CoreOptions {
  /** Where the database, files and backups live. */
  dataDir: string
  mode: CoreContext['mode']
  access?: AccessPolicy
  /** Extra start-up steps (tests use this to simulate slow or failing start-up). */
  extraInitSteps?: InitStep[]
}

export interface Core {
  router: Router<Contract>
  context: CoreContext
  close(): Promise<void>
}

/** Builds the application: services, the router that exposes them, and start-up. */
export function createCore(options: CoreOptions): Core {
  const steps: InitStep[] = [
    {
      phase: 'loadingDependencies',
      run: () => {
        mkdirSync(options.dataDir, { recursive: true })
      }
    },
    ...(options.extraInitSteps ?? [])
  ]
  const init = new InitService(steps)
  const context: CoreContext = {
    version: APP_VERSION,
    mode: options.mode,
    dataDir: options.dataDir,
    init,
    access: options.access
  }
  const router = new Router(contract, { ...appHandlers(context) })
  void init.start()
  return {
    router,
    context,
    async close() {
      router.hub.close()
    }
  }
}
