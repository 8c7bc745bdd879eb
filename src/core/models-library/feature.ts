import type { Feature } from '../feature'
import type { Secrets } from '../secrets'
import { isUnavailable, type Unavailable } from '../unavailable'
import type { BuiltinEngine } from '../engine'
import { createModelsLibraryFeature } from './index'
import { modelsLibraryHandlers } from './handlers'
import type { ModelsLibraryFeature } from './models-library'

interface Deps {
  env: { dataDir: string; mode: 'desktop' | 'browser' | 'test'; access?: { password?: string } | undefined }
  /** The keychain once start-up opened it (read at each use: a token set later is used). */
  keychain: () => Secrets | undefined
  engine: BuiltinEngine | Unavailable
}

/** Finding, fitting and downloading models. Needs no store, so it stands (root.ts); interrupted downloads resume in start-up (`modelsLibraryInitStep`). */
export const modelsLibraryFeature: Feature<Deps, { modelsLibrary: ModelsLibraryFeature }, keyof ReturnType<typeof modelsLibraryHandlers>> = {
  create: ({ env, keychain, engine }) => {
    // The library judges a fit against what the engine would allow a model: free memory, at most its budget.
    const memory = isUnavailable(engine) ? undefined : () => engine.memory
    return { modelsLibrary: createModelsLibraryFeature({ dataDir: env.dataDir, secrets: keychain, ...(memory ? { memory } : {}) }) }
  },
  handlers: (use, env, hub) => modelsLibraryHandlers(use('modelsLibrary', 'The model library')(), hub, env),
  close: ({ modelsLibrary }) => modelsLibrary.close()
}
