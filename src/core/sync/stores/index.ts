import type { SyncStoreConfig } from '../../../shared/bridge/procedures/sync'
import type { SyncStore } from '../store'
import { openFolderStore } from './folder'

/**
 * Opens the store a configuration names; the secret is the store's own (password, secret key).
 * The S3, WebDAV and PostgreSQL clients load on first use, like the provider SDKs: a device
 * that syncs through a folder, or not at all, never loads them.
 */
export async function openSyncStore(config: SyncStoreConfig, secret?: string): Promise<SyncStore> {
  switch (config.kind) {
    case 'folder':
      return openFolderStore(config)
    case 's3':
      return (await import('./s3')).openS3Store(config, secret)
    case 'webdav':
      return (await import('./webdav')).openWebdavStore(config, secret)
    case 'postgres':
      return (await import('./postgres')).openPostgresStore(config, secret)
  }
}
