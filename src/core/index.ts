import { mkdirSync } from 'node:fs'
import { contract, type Contract } from '../shared/bridge/contract'
import { Router, type Implementation } from './bridge/router'
import { appHandlers } from './bridge/handlers/app'
import { taskHandlers } from './bridge/handlers/tasks'
import { StreamHub } from './bridge/stream-hub'
import { notReady } from './bridge/not-ready'
import { storeInitStep } from './store/start-up'
import type { OpenSecretsOptions } from './secrets'
import type { AccessPolicy } from './bridge/session'
import { InitService, type InitStep } from './services/init-service'
import type { CoreContext } from './context'
import { APP_VERSION } from './version'
import { configureLogFile } from './log/logger'
import { needs, ServiceAccess } from './services-access'
import { buildStandingServices, closeServices, closeStandingServices, featureHandlers, openedGraph, type EngineOptions, type Services } from './root'
import type { SyncTuning } from './sync/sync-service'
import { updateHandlers, type UpdaterPort } from './bridge/handlers/updates'
import { modelsLibraryInitStep } from './models-library'

export interface CoreOptions {
  /** Where the database, files and backups live. */
  dataDir: string
  mode: CoreContext['mode']
  access?: AccessPolicy
  /** Extra start-up steps (tests use this to simulate slow or failing start-up). */
  extraInitSteps?: InitStep[]
  /** The desktop's file dialogs (the Electron shell passes them; `data.choosePath`). */
  fileDialog?: CoreContext['fileDialog']
  /** Keychain service name or backend (tests use their own service so they never touch a user's keys). */
  secrets?: OpenSecretsOptions
  /** Opens an address in the user's browser (the desktop shell passes its checked shell.openExternal). */
  openExternal?: (url: string) => void
  /** The installed desktop app's updater and command-line installer (the Electron shell passes them; `app.update.*`). */
  updater?: UpdaterPort
  /** `switchboard api serve --host/--port`: where the local API listens in this process. */
  localApi?: CoreContext['localApi']
  /**
   * Where provider keys are read when none is stored: `<PROVIDER>_API_KEY` (and Bedrock's AWS
   * variables), as the CLI reads them. Browser mode passes its environment; tests their own.
   */
  keyEnv?: NodeJS.ProcessEnv
  /** How the built-in engine's process starts (the desktop passes its utilityProcess spawner; tests a host entry). */
  engine?: EngineOptions
  /** Sync's timings, wall clock and a wrapper around the store it opens (tests). */
  sync?: SyncTuning
}

export interface Core {
  router: Router<Contract>
  context: CoreContext
  /** Every service, once start-up built them (tests reach past the bridge with it); throws the not-ready error before. */
  services(): Services
  close(): Promise<void>
}

/**
 * Builds the application: start-up, the router that exposes the services, and the services
 * themselves, which the composition root (root.ts) builds in the 'migrating' step once the
 * store and keychain are open. A feature is its folder and one line in the root (root.ts).
 */
export function createCore(options: CoreOptions): Core {
  // The one hub of background work: streams and the tasks they are.
  const hub = new StreamHub()
  const context: CoreContext = {
    version: APP_VERSION,
    mode: options.mode,
    dataDir: options.dataDir,
    init: undefined as unknown as InitService,
    access: options.access,
    ...(options.fileDialog ? { fileDialog: options.fileDialog } : {}),
    ...(options.openExternal ? { openExternal: options.openExternal } : {}),
    ...(options.localApi ? { localApi: options.localApi } : {}),
    ...(options.keyEnv ? { keyEnv: options.keyEnv } : {}),
    ...(options.sync ? { sync: options.sync } : {}),
    ...(options.engine ? { engine: options.engine } : {}),
    services: new ServiceAccess(() => context.init)
  }
  // The root's standing stage (local model servers, the engine, the model library), built now so
  // it answers in every start-up state; the model library reads the keychain and the local
  // servers their addresses (the settings table) at each use, once start-up opened them.
  const standing = buildStandingServices({ env: context, hub, keychain: () => context.services.built()?.secrets, settings: () => context.services.built()?.store.settings, unavailable: (what) => notReady(context, what) })
  context.services.stand(standing)
  const steps: InitStep[] = [
    {
      phase: 'loadingDependencies',
      run: () => {
        mkdirSync(options.dataDir, { recursive: true })
        // Failures that do not stop the work are written to <dataDir>/logs (src/core/log/logger.ts).
        configureLogFile(options.dataDir)
      }
    },
    storeInitStep(context, openedGraph(context.services, context, hub, standing), options.secrets),
    modelsLibraryInitStep(standing, hub),
    ...(options.extraInitSteps ?? [])
  ]
  context.init = new InitService(steps)
  const impl: Implementation<Contract> = {
    // The bridge's own procedures.
    ...appHandlers(context),
    ...taskHandlers(hub),
    ...updateHandlers(options.updater, APP_VERSION),
    // Every feature's, registered by the feature itself (root.ts lists them).
    ...featureHandlers((key, what) => needs(context, key, what), context, hub)
  }
  const router = new Router(contract, impl, hub)
  void context.init.start()
  return {
    router,
    context,
    services: () => context.services.all('Switchboard'),
    async close() {
      const services = context.services.built()
      if (services) await closeServices(services, { hub: router.hub, standing: true })
      else {
        router.hub.close()
        await closeStandingServices(standing)
      }
      services?.store.close()
    }
  }
}
