import type { Feature } from '../feature'
import type { Secrets } from '../secrets'
import { createModelsLibraryFeature } from './index'
import { modelsLibraryHandlers } from './handlers'
import type { ModelsLibraryFeature } from './models-library'

interface Deps {
  env: { dataDir: string; mode: 'desktop' | 'browser' | 'test'; access?: { password?: string } | undefined }
  /** The keychain once start-up opened it (read at each use: a token set later is used). */
  keychain: () => Secrets | undefined
}

/** Finding, fitting and downloading models. Needs no store, so it stands (root.ts); interrupted downloads resume in start-up (`modelsLibraryInitStep`). */
export const modelsLibraryFeature: Feature<Deps, { modelsLibrary: ModelsLibraryFeature }, keyof ReturnType<typeof modelsLibraryHandlers>> = {
  create: ({ env, keychain }) => ({ modelsLibrary: createModelsLibraryFeature({ dataDir: env.dataDir, secrets: keychain }) }),
  handlers: (use, env, hub) => modelsLibraryHandlers(use('modelsLibrary', 'The model library')(), hub, env),
  close: ({ modelsLibrary }) => modelsLibrary.close()
}
