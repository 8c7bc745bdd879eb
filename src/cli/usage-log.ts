import { existsSync } from 'node:fs'
import type { UsageEntry } from '../core/caller/model-caller'
import type { Store } from '../core/store'

/**
 * The data folder's usage log for one command, so a CLI call shows in `switchboard usage` and on
 * the Usage page like the app's. The store opens on the first row (a chat that never reaches a
 * model opens nothing) and closes with the command. Only a folder that has a database already
 * gets rows: like `switchboard usage`, a chat makes no data folder just to hold its log. A data
 * folder the app holds open cannot be opened a second time: the row is then lost, and the caller
 * logs why (createModelCaller).
 */
export async function cliUsageLog(dataDir: string): Promise<{ add(entry: UsageEntry): void; close(): void }> {
  const { openStore, databasePath } = await import('../core/store')
  let store: Store | undefined
  return {
    add(entry) {
      if (!store && !existsSync(databasePath(dataDir))) return
      store ??= openStore({ dataDir, dailyBackupMs: 0, lockOwner: 'the command line (switchboard chat)' }).store
      store.usage.add(entry)
    },
    close() {
      store?.close()
      store = undefined
    }
  }
}
