import type { Feature } from '../feature'
import type { Store } from '../store'
import type { FeatureSettingsStore } from '../store/repositories/settings'
import { createLocalFeature, type LocalFeature } from './index'
import { localHandlers } from './handlers'
import { migrateLocalServersFile } from './local-settings'

/**
 * Local model servers: detection, the Ollama manager, the pulls. Needs no store, so it stands
 * (root.ts); the user-set addresses are read from the settings table at each use, once start-up
 * opened it (`settings`).
 */
export const localFeature: Feature<
  { env: { dataDir: string }; settings: () => FeatureSettingsStore | undefined; unavailable: (what: string) => Error },
  { local: LocalFeature },
  keyof ReturnType<typeof localHandlers>
> = {
  // Saving an address before the store is open says why it is not (still starting, or start-up failed and why).
  create: ({ settings, unavailable }) => ({ local: createLocalFeature({ settings, unavailable: () => unavailable('Saving a local server address') }) }),
  handlers: (use, _env, hub) => localHandlers(use('local', 'Local models')(), hub),
  close: ({ local }) => local.close()
}

/**
 * Once start-up has opened the store, an old `local-servers.json` is moved into the settings
 * table (decision 158), before any feature built after it can ask for an address.
 */
export const localServersFeature: Feature<{ env: { dataDir: string }; store: Store }, object> = {
  create: ({ env, store }) => {
    migrateLocalServersFile(env.dataDir, store.settings)
    return {}
  }
}
