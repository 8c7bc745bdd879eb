import { acquireDataLock, type DataLock } from '../core/store/data-lock'
import { AppErrorException } from '../shared/errors/app-error'

/** Takes the data-folder lock for this process, or prints why not (folder and other process) and exits 1. */
export function lockDataFolderOrExit(dataDir: string, app: string): DataLock {
  try {
    return acquireDataLock(dataDir, app)
  } catch (error) {
    const message = error instanceof AppErrorException ? error.error.message : `Switchboard could not lock its data folder ${dataDir}: ${String(error)}`
    console.error(message)
    process.exit(1)
  }
}
