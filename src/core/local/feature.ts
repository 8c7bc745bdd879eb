import type { Feature } from '../feature'
import type { Store } from '../store'
import { createLocalFeature, type LocalFeature } from './index'
import { localHandlers } from './handlers'
import { migrateLocalServersFile } from './local-settings'

/** Local model servers: detection, the Ollama manager, the pulls. Needs no store, so it stands (root.ts). */
export const localFeature: Feature<{ env: { dataDir: string } }, { local: LocalFeature }, keyof ReturnType<typeof localHandlers>> = {
  create: () => ({ local: createLocalFeature() }),
  handlers: (use, _env, hub) => localHandlers(use('local', 'Local models')(), hub),
  close: ({ local }) => local.close()
}

/**
 * The local servers' addresses, once start-up has opened the store: an old `local-servers.json`
 * is moved into the settings table, then the standing feature reads and writes them there
 * (decision 158). Closing the graph (a retried start-up, shutdown) detaches them again.
 */
export const localServersFeature: Feature<{ env: { dataDir: string }; local: LocalFeature; store: Store }, { localServers: { detach(): void } }> = {
  create: ({ env, local, store }) => {
    migrateLocalServersFile(env.dataDir, store.settings)
    local.settings.attach(store.settings)
    return { localServers: { detach: () => local.settings.detach() } }
  },
  close: ({ localServers }) => localServers.detach()
}
