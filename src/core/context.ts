import type { SyncTuning } from './sync/sync-service'
import type { AccessPolicy } from './bridge/session'
import type { InitService } from './services/init-service'
import type { ServiceAccess } from './services-access'

import type { FeatureEnv } from './feature'
import type { EngineOptions } from './engine/feature'

export type { FileDialog } from './feature'

/**
 * What every handler can reach: the environment the core runs in, start-up, and the one
 * accessor of the services the composition root (root.ts) builds once the store is open.
 */
export interface CoreContext extends FeatureEnv {
  init: InitService
  access?: AccessPolicy
  /** Opens an address in the user's browser (desktop only: an OAuth sign-in of a tool server). */
  openExternal?: (url: string) => void
  /** `switchboard api serve --host/--port`: where the local API listens in this process, and that it runs whatever Settings says. */
  localApi?: { host?: string; port?: number; serve?: boolean }
  /** Every other service: `services.get('chat', 'Chat')` answers not-ready until start-up built them. */
  services: ServiceAccess
  /** Provider keys from the environment when none is stored (browser mode; see CoreOptions.keyEnv). */
  keyEnv?: NodeJS.ProcessEnv
  /** Sync's timings, clock and store wrapper (tests skew clocks and fail stores; see CoreOptions.sync). */
  sync?: SyncTuning
  /** How the built-in engine's process starts (see CoreOptions.engine). */
  engine?: EngineOptions
}
