import type { SyncStoreConfig } from '../../../shared/bridge/procedures/sync'
import { SyncStoreError, type SyncStore } from '../store'
import { openFolderStore } from './folder'

/** Opens the store a configuration names; the secret is the store's own (password, secret key). */
export async function openSyncStore(config: SyncStoreConfig, _secret?: string): Promise<SyncStore> {
  switch (config.kind) {
    case 'folder':
      return openFolderStore(config)
    default:
      throw new SyncStoreError('SyncStoreInvalid', `A ${config.kind} store is not in this build.`, 'Use a folder store, or a build that includes this kind.')
  }
}
