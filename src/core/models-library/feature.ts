import type { Feature } from '../feature'
import type { Secrets } from '../secrets'
import { logged } from '../log/logger'
import { createModelsLibraryFeature } from './index'
import { modelsLibraryHandlers } from './handlers'
import type { ModelsLibraryFeature } from './models-library'

interface Deps {
  env: { dataDir: string }
  /** The keychain once start-up opened it (read at each use: a token set later is used). */
  keychain: () => Secrets | undefined
}

/** Finding, fitting and downloading models. Needs no store, so it stands (root.ts); interrupted downloads resume once the graph exists. */
export const modelsLibraryFeature: Feature<Deps, { modelsLibrary: ModelsLibraryFeature }, keyof ReturnType<typeof modelsLibraryHandlers>> = {
  create: ({ env, keychain }) => ({ modelsLibrary: createModelsLibraryFeature({ dataDir: env.dataDir, secrets: keychain }) }),
  handlers: (use, _env, hub) => modelsLibraryHandlers(use('modelsLibrary', 'The model library')(), hub),
  // Picks up downloads a quit or a crash interrupted (those the user paused stay paused).
  start: ({ modelsLibrary }) => void modelsLibrary.library.downloads.restore().catch(logged('models', 'resuming interrupted downloads')),
  close: ({ modelsLibrary }) => modelsLibrary.close()
}
