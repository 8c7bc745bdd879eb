import type { ModelsLibraryFeature } from './feature'
import type { InitStep } from '../services/init-service'
import type { Secrets } from '../secrets'
import { logged } from '../log/logger'
import { ModelsLibrary } from './library-service'
import type { MemoryAvailable } from './fit-estimate'


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

/** Picks up downloads a quit or a crash interrupted (those the user paused stay paused). */
export function modelsLibraryInitStep(context: { modelsLibrary: ModelsLibraryFeature }): InitStep {
  return {
    phase: 'migrating',
    run() {
      void context.modelsLibrary.library.downloads.restore().catch(logged('models', 'resuming interrupted downloads'))
    }
  }
}

export { modelsLibraryHandlers } from './handlers'
export type { ModelsLibraryFeature } from './feature'
export { ModelsLibrary, parseModelRef } from './library-service'
