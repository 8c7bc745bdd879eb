import { Secrets, type OpenSecretsOptions } from '../secrets'
import type { InitStep } from '../services/init-service'
import type { Store } from './store'
import { openStore } from './open-store'
import { AppErrorException } from '../../shared/errors/app-error'
import { nativeLoadError } from '../../shared/errors/native-load-error'

/**
 * What the store step hands the store and keychain it opened to: the composition root, which
 * builds the graph on them (root.ts `openedGraph`). The step knows nothing of the graph.
 */
export interface OpenedGraph {
  /** Closes what the last run built (a retried start-up), its store with it. */
  reset(): Promise<void>
  /** The store answers while the keychain is still being probed. */
  early(store: Store): void
  /** Builds and starts every service on the opened store and keychain; a throw fails start-up. */
  build(opened: { store: Store; secrets: Secrets }): void
  /** Start-up failed after the store opened: nothing half-built stays reachable. */
  abandon(): void
}

/**
 * The 'migrating' start-up step: opens, checks and migrates the database, repairs what a
 * crash left, opens the keychain, then has the composition root build every service on them.
 * Its notices ("restored from a backup", "keys are held in memory") reach the user with the
 * `ready` state. A failure leaves the state at `error` with the reason; `app.retryInit` runs
 * this again.
 */
export function storeInitStep(env: { mode: 'desktop' | 'browser' | 'test'; dataDir: string }, graph: OpenedGraph, secretsOptions: OpenSecretsOptions = {}): InitStep {
  let secrets: Secrets | undefined
  return {
    phase: 'migrating',
    async run(report) {
      await graph.reset()
      const owner = env.mode === 'desktop' ? 'the desktop app' : env.mode === 'browser' ? 'browser mode (npm run serve)' : 'a test'
      let opened: ReturnType<typeof openStore>
      try {
        opened = openStore({ dataDir: env.dataDir, report, lockOwner: owner })
      } catch (error) {
        // SQLite's prebuild on a Linux older than it was built for: say so instead of a loader stack.
        const unsupported = nativeLoadError(error, 'The database (SQLite)')
        throw unsupported ? new AppErrorException(unsupported) : error
      }
      // Your data answers while the keychain is still being probed; the rest waits for the graph.
      graph.early(opened.store)
      try {
        report('Opening the keychain')
        secrets ??= await Secrets.open(secretsOptions.service || secretsOptions.backend || env.mode !== 'test' ? secretsOptions : { service: 'switchboard-test' })
        graph.build({ store: opened.store, secrets })
      } catch (error) {
        // Nothing half-built stays open: a retry opens the store again.
        graph.abandon()
        opened.store.close()
        throw error
      }
      const status = secrets.status
      return status.persistent ? opened.notices : [...opened.notices, status.reason ?? 'API keys are held in memory for this session only.']
    }
  }
}
