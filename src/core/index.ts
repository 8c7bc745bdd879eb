import { mkdirSync } from 'node:fs'
import { contract, type Contract } from '../shared/bridge/contract'
import { Router, type Implementation } from './bridge/router'
import { appHandlers } from './bridge/handlers/app'
import { localHandlers } from './bridge/handlers/local'
import { dataHandlers } from './bridge/handlers/data'
import { chatHandlers } from './bridge/handlers/chat'
import { providerHandlers } from './bridge/handlers/providers'
import { chatInitStep } from './services/chat-start-up'
import { voiceFilesInitStep } from './services/voice-files-start-up'
import { speechHandlers } from './bridge/handlers/speech'
import { fileHandlers } from './bridge/handlers/files'
import { imageInitStep } from './services/image-start-up'
import { imageHandlers } from './bridge/handlers/images'
import { toolHandlers } from './bridge/handlers/tools'
import { toolsInitStep } from './tools/tools-start-up'
import { knowledgeInitStep } from './knowledge/knowledge-start-up'
import { knowledgeHandlers } from './bridge/handlers/knowledge'
import { taskHandlers } from './bridge/handlers/tasks'
import { StreamHub } from './bridge/stream-hub'
import { competitionHandlers } from './bridge/handlers/competition'
import { storeInitStep } from './store/start-up'
import type { OpenSecretsOptions } from './secrets'
import { createLocalFeature } from './local'
import { createModelsLibraryFeature, modelsLibraryHandlers, modelsLibraryInitStep } from './models-library'
import type { AccessPolicy } from './bridge/session'
import { InitService, type InitStep } from './services/init-service'
import type { CoreContext } from './context'
import { APP_VERSION } from './version'
import { configureLogFile } from './log/logger'
import { closeBuiltinEngine, configureBuiltinEngine } from './engine'
import { engineHandlers } from './bridge/handlers/engine'

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
  // The one hub of background work: streams and the tasks they are (issue 19).
  const hub = new StreamHub()
  const context: CoreContext = {
    version: APP_VERSION,
    mode: options.mode,
    dataDir: options.dataDir,
    init: undefined as unknown as InitService,
    access: options.access,
    ...(options.fileDialog ? { fileDialog: options.fileDialog } : {}),
    ...(options.openExternal ? { openExternal: options.openExternal } : {}),
    local: createLocalFeature(options.dataDir),
    modelsLibrary: undefined as unknown as CoreContext['modelsLibrary']
  }
  // Built after the context object: it reads the keychain from it once start-up opened it.
  context.modelsLibrary = createModelsLibraryFeature(context)
  const steps: InitStep[] = [
    {
      phase: 'loadingDependencies',
      run: () => {
        mkdirSync(options.dataDir, { recursive: true })
        // Failures that do not stop the work are written to <dataDir>/logs (src/core/log/logger.ts).
        configureLogFile(options.dataDir)
      }
    },
    storeInitStep(context, options.secrets),
    chatInitStep(context, () => hub),
    voiceFilesInitStep(context),
    imageInitStep(context, () => hub),
    toolsInitStep(context),
    knowledgeInitStep(context, () => hub),
    modelsLibraryInitStep(context),
    // feature start-up steps go here
    ...(options.extraInitSteps ?? [])
  ]
  context.init = new InitService(steps)
  configureBuiltinEngine({ dataDir: options.dataDir })
  const impl: Implementation<Contract> = {
    ...appHandlers(context),
    ...localHandlers(context.local, hub),
    ...dataHandlers(context, hub),
    ...chatHandlers(context),
    ...providerHandlers(context),
    ...speechHandlers(context),
    ...fileHandlers(context),
    ...imageHandlers(context),
    ...toolHandlers(context),
    ...knowledgeHandlers(context),
    ...taskHandlers(hub),
    ...competitionHandlers(context, () => hub),
    ...modelsLibraryHandlers(context.modelsLibrary, hub),
    ...engineHandlers()
    // feature handlers go here
  }
  const router = new Router(contract, impl, hub)
  void context.init.start()
  return {
    router,
    context,
    async close() {
      context.knowledge?.close()
      router.hub.close()
      // Every tool server stopped (stdio children killed) before the store closes.
      await context.tools?.close()
      await context.local.close()
      await context.modelsLibrary.close()
      context.store?.close()
      await closeBuiltinEngine()
      // feature shutdown goes here
    }
  }
}
