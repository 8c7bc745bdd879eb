import type { Feature } from '../feature'
import { createLocalFeature, type LocalFeature } from './index'
import { localHandlers } from './handlers'

/** Local model servers: detection, the Ollama manager, the pulls. Needs no store, so it stands (root.ts). */
export const localFeature: Feature<{ env: { dataDir: string } }, { local: LocalFeature }, keyof ReturnType<typeof localHandlers>> = {
  create: ({ env }) => ({ local: createLocalFeature(env.dataDir) }),
  handlers: (use, _env, hub) => localHandlers(use('local', 'Local models')(), hub),
  close: ({ local }) => local.close()
}
