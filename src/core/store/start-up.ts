import type { CoreContext } from '../context'
import { Secrets, type OpenSecretsOptions } from '../secrets'
import type { InitStep } from '../services/init-service'
import { openStore } from './open-store'
import { AppErrorException } from '../../shared/errors/app-error'
import { nativeLoadError } from '../../shared/errors/native-load-error'

/**
 * The 'migrating' start-up step: opens, checks and migrates the database, repairs what a
 * crash left, and opens the keychain. Its notices ("restored from a backup", "keys are held in
 * memory") reach the user with the `ready` state. A failure leaves the state at `error` with
 * the reason; `app.retryInit` runs this again.
 */
export function storeInitStep(context: CoreContext, secrets: OpenSecretsOptions = {}): InitStep {
  return {
    phase: 'migrating',
    async run(report) {
      context.store?.close()
      context.store = undefined
      const owner = context.mode === 'desktop' ? 'the desktop app' : context.mode === 'browser' ? 'browser mode (npm run serve)' : 'a test'
      let opened: ReturnType<typeof openStore>
      try {
        opened = openStore({ dataDir: context.dataDir, report, lockOwner: owner })
      } catch (error) {
        // SQLite's prebuild on a Linux older than it was built for: say so instead of a loader stack.
        const unsupported = nativeLoadError(error, 'The database (SQLite)')
        throw unsupported ? new AppErrorException(unsupported) : error
      }
      context.store = opened.store
      report('Opening the keychain')
      context.secrets ??= await Secrets.open(secrets.service || secrets.backend || context.mode !== 'test' ? secrets : { service: 'switchboard-test' })
      const status = context.secrets.status
      return status.persistent ? opened.notices : [...opened.notices, status.reason ?? 'API keys are held in memory for this session only.']
    }
  }
}
