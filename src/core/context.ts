import type { SyncTuning } from './sync/sync-service'
import type { AccessPolicy } from './bridge/session'
import type { InitService } from './services/init-service'
import type { LocalFeature } from './local'
import type { ServiceAccess } from './services-access'

/** The desktop shell's file dialogs (Electron only): the chosen path, or undefined when cancelled. */
export interface FileDialog {
  choose(purpose: 'import' | 'export', suggestedName: string): Promise<string | undefined>
}

/**
 * What every handler can reach: the environment the core runs in, start-up, and the one
 * accessor of the services the composition root (root.ts) builds once the store is open.
 */
export interface CoreContext {
  version: string
  mode: 'desktop' | 'browser' | 'test'
  dataDir: string
  init: InitService
  access?: AccessPolicy
  /** Set by the Electron shell; absent in browser mode, the CLI and tests that do not give one. */
  fileDialog?: FileDialog
  /** Local model servers: needs no store, so it answers in every start-up state. */
  local: LocalFeature
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
}
