import { mkdirSync } from 'node:fs'
import { contract, type Contract } from '../shared/bridge/contract'
import { Router, type Implementation } from './bridge/router'
import { appHandlers } from './bridge/handlers/app'
import { localHandlers } from './bridge/handlers/local'
import { createLocalFeature } from './local'
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

/**
 * Builds the application: services, the router that exposes them, and start-up.
 * Each feature adds its service to the context, its start-up step, and its handlers:
 * one line each in the marked places below.
 */
export function createCore(options: CoreOptions): Core {
  const context: CoreContext = {
    version: APP_VERSION,
    mode: options.mode,
    dataDir: options.dataDir,
    init: undefined as unknown as InitService,
    access: options.access,
    local: createLocalFeature(options.dataDir)
  }
  const steps: InitStep[] = [
    {
      phase: 'loadingDependencies',
      run: () => {
        mkdirSync(options.dataDir, { recursive: true })
      }
    },
    // feature start-up steps go here
    ...(options.extraInitSteps ?? [])
  ]
  context.init = new InitService(steps)
  const impl: Implementation<Contract> = {
    ...appHandlers(context),
    ...localHandlers(context.local)
    // feature handlers go here
  }
  const router = new Router(contract, impl)
  void context.init.start()
  return {
    router,
    context,
    async close() {
      router.hub.close()
      await context.local.close()
      // feature shutdown goes here
    }
  }
}
