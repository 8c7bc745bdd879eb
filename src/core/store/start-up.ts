import type { StreamHub } from '../bridge/stream-hub'
import type { CoreContext } from '../context'
import { buildServices, closeServices, startServices, type StandingServices } from '../root'
import { Secrets, type OpenSecretsOptions } from '../secrets'
import type { InitStep } from '../services/init-service'
import { openStore } from './open-store'
import { AppErrorException } from '../../shared/errors/app-error'
import { nativeLoadError } from '../../shared/errors/native-load-error'

/**
 * The 'migrating' start-up step: opens, checks and migrates the database, repairs what a
 * crash left, opens the keychain, then has the composition root build every service on them.
 * Its notices ("restored from a backup", "keys are held in memory") reach the user with the
 * `ready` state. A failure leaves the state at `error` with the reason; `app.retryInit` runs
 * this again.
 */
export function storeInitStep(context: CoreContext, hub: StreamHub, standing: StandingServices, secretsOptions: OpenSecretsOptions = {}): InitStep {
  let secrets: Secrets | undefined
  return {
    phase: 'migrating',
    async run(report) {
      const previous = context.services.built()
      context.services.set(undefined)
      if (previous) {
        await closeServices(previous)
        previous.store.close()
      }
      const owner = context.mode === 'desktop' ? 'the desktop app' : context.mode === 'browser' ? 'browser mode (npm run serve)' : 'a test'
      let opened: ReturnType<typeof openStore>
      try {
        opened = openStore({ dataDir: context.dataDir, report, lockOwner: owner })
      } catch (error) {
        // SQLite's prebuild on a Linux older than it was built for: say so instead of a loader stack.
        const unsupported = nativeLoadError(error, 'The database (SQLite)')
        throw unsupported ? new AppErrorException(unsupported) : error
      }
      // Your data answers while the keychain is still being probed; the rest waits for the graph.
      context.services.provide({ store: opened.store })
      try {
        report('Opening the keychain')
        secrets ??= await Secrets.open(secretsOptions.service || secretsOptions.backend || context.mode !== 'test' ? secretsOptions : { service: 'switchboard-test' })
        const services = buildServices({ env: context, store: opened.store, secrets, hub, standing })
        startServices(services)
        context.services.set(services)
      } catch (error) {
        // Nothing half-built stays open: a retry opens the store again.
        context.services.provide({})
        opened.store.close()
        throw error
      }
      const status = secrets.status
      return status.persistent ? opened.notices : [...opened.notices, status.reason ?? 'API keys are held in memory for this session only.']
    }
  }
}
