// The store's public surface: what services, handlers and the CLI import.
export { openStore, recoverFromCorruption, type OpenStoreOptions, type OpenedStore } from './open-store'
export { Store, databasePath, DATABASE_FILE } from './store'
export { StoreErrorType } from './errors'
export { listBackups, BACKUPS_KEPT, type BackupInfo } from './backup'
export type { StreamingWriter, FinishExtras, StreamingWriterOptions } from './repositories/streaming-writer'
export type { BeginStreamingInput } from './repositories/messages'
export { acquireDataLock, inUseMessage, LOCK_FILE, type DataLock, type LockHolder } from './data-lock'
