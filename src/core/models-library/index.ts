import type { ModelsLibraryFeature } from './models-library'
import type { InitStep } from '../services/init-service'
import { logged } from '../log/logger'
import type { Secrets } from '../secrets'
import { ModelsLibrary } from './library-service'
import type { StreamHub } from '../bridge/stream-hub'
import { downloadTask } from './handlers'
import type { MemoryAvailable } from '../gguf/fit-estimate'


/** The keychain entry of the Hugging Face token (never written to disk, never sent to the renderer). */
export const HF_TOKEN_KEY = 'hf-token'

export function createModelsLibraryFeature(
  context: { dataDir: string; secrets(): Secrets | undefined; memory?: () => MemoryAvailable },
  options: { fetch?: typeof fetch } = {}
): ModelsLibraryFeature {
  // The keychain opens during start-up: read at each use, so a token set later is used.
  const hfToken = async () => (await context.secrets()?.readForRuntime(HF_TOKEN_KEY)) || process.env['HF_TOKEN'] || undefined
  const library = new ModelsLibrary({ dataDir: context.dataDir, fetch: options.fetch, hfToken, ...(context.memory ? { memory: context.memory } : {}) })
  return {
    library,
    hfToken,
    async setHfToken(token) {
      const secrets = context.secrets()
      if (!secrets) throw new Error('The keychain is not open yet; try again in a moment.')
      if (token) await secrets.set(HF_TOKEN_KEY, token)
      else await secrets.delete(HF_TOKEN_KEY)
    },
    close: () => library.close()
  }
}

/**
 * Picks up downloads a quit or a crash interrupted (those the user paused stay paused). Each one
 * resumed is a task of the hub like a download started from the page, so a window that opens
 * finds it among the running tasks and follows its progress.
 */
export function modelsLibraryInitStep(context: { modelsLibrary: ModelsLibraryFeature }, hub: StreamHub): InitStep {
  return {
    phase: 'migrating',
    // Awaited (it reads a few small files; the transfers run on in the background), so a window
    // that opens once start-up is over already finds the resumed downloads among the tasks.
    async run() {
      try {
        for (const snap of await context.modelsLibrary.library.downloads.restore()) if (snap.phase !== 'paused') downloadTask(hub, context.modelsLibrary, snap)
      } catch (error) {
        logged('models', 'resuming interrupted downloads')(error)
      }
      return undefined
    }
  }
}

export { modelsLibraryHandlers } from './handlers'
export type { ModelsLibraryFeature } from './models-library'
export { ModelsLibrary, parseModelRef } from './library-service'
