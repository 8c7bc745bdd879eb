import { z } from 'zod'
import { call, stream } from '../define'

/** automatic: download in the background and offer a restart; notify: say an update exists; off: only when asked. */
export type UpdateMode = 'automatic' | 'notify' | 'off'
export const UPDATE_MODE_VALUES = ['automatic', 'notify', 'off'] as const

export type UpdatePhase = 'unavailable' | 'idle' | 'checking' | 'up-to-date' | 'available' | 'downloading' | 'downloaded' | 'error'

export interface UpdateStatus {
  phase: UpdatePhase
  mode: UpdateMode
  currentVersion: string
  /** The release on offer (available, downloading, downloaded). */
  version?: string
  /** Download progress, 0–100. */
  percent?: number
  bytesPerSecond?: number
  /** Why updates are unavailable, why a release was skipped, or what failed. */
  message?: string
  /** When the last check finished (ms since epoch). */
  checkedAt?: number
}

/** The `switchboard` command: whether the shim is installed, where, and what to do if its folder is not on PATH. */
export interface CommandLineStatus {
  available: boolean
  installed: boolean
  file?: string
  onPath?: boolean
  advice?: string
}

export const updateProcedures = {
  /** The updater's state now, then each change, until cancelled. Browser mode: one `unavailable`. */
  'app.update.status': stream<UpdateStatus, void>()(z.object({}).strict()),
  'app.update.check': call<UpdateStatus>()(z.object({}).strict()),
  'app.update.download': call<UpdateStatus>()(z.object({}).strict()),
  /** Quits (the core closes first) and installs the downloaded update. */
  'app.update.restart': call<{ restarting: true }>()(z.object({}).strict()),
  'app.update.setMode': call<UpdateStatus>()(z.object({ mode: z.enum(UPDATE_MODE_VALUES) }).strict()),
  'app.commandLine.status': call<CommandLineStatus>()(z.object({}).strict()),
  /** Puts the `switchboard` shim on PATH (desktop only). */
  'app.commandLine.install': call<CommandLineStatus>()(z.object({}).strict())
} as const
