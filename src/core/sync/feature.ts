import type { Feature, ProceduresOf } from '../feature'
import type { Store } from '../store'
import type { Secrets } from '../secrets'
import type { AccessPolicy } from '../bridge/session'
import type { ProviderService } from '../providers/provider-service'
import { clientReach } from '../security/client-policy'
import { logger } from '../log/logger'
import { SyncService, type SyncTuning } from './sync-service'
import { openSyncStore } from './stores'
import { syncHandlers } from './handlers'

interface Deps {
  env: { mode: 'desktop' | 'browser' | 'test'; dataDir: string; access?: AccessPolicy | undefined; sync?: SyncTuning | undefined }
  store: Store
  secrets: Secrets
  providers: ProviderService
}

/** Sync: this device's changes to a store the user chose, and the other devices' back. */
export const syncFeature: Feature<Deps, { sync: SyncService }, ProceduresOf<'sync'>> = {
  create: ({ env, store, secrets, providers }) => {
    const { wrapStore, ...tuning } = env.sync ?? {}
    const sync = new SyncService({
        ...tuning,
        db: store.db,
        watchWrites: (watcher) => store.db.watchWrites(watcher),
        dataDir: env.dataDir,
        secrets,
        openStore: wrapStore ? async (config, secret) => wrapStore(await openSyncStore(config, secret)) : openSyncStore,
        // A store address or folder is a host resource, like a path: not for a remote browser-mode client.
        mayChange: () => clientReach(env) !== 'remote',
        apiKeys: { names: () => providers.keyNames(), isKey: (name) => providers.isKeyName(name) },
        // Settings are cached parsed; another device's settings must be read again.
        applied: (tables) => {
          if (tables.has('settings')) store.settings.invalidate()
        }
      })
    // A restore (Settings → Data) replaces the file that holds sync's stamps and segment numbers.
    store.watchRestores({ before: () => sync.holdForRestore(), after: (replaced) => sync.afterRestore(replaced) })
    return { sync }
  },
  handlers: (use) => syncHandlers(use('sync', 'Sync')),
  // Not awaited either: the keychain or the store may be slow; the status says what it is doing.
  start: ({ sync }) => void sync.start().catch((error: unknown) => logger.warn('sync', 'sync did not start', error)),
  close: ({ sync }) => sync.close()
}
