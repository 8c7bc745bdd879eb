import { z } from 'zod'
import { call, stream } from '../define'
import type { InitState } from '../../app/init-state'

export interface AppInfo {
  name: 'Switchboard'
  version: string
  /** Which shell hosts the core. */
  mode: 'desktop' | 'browser' | 'test'
  platform: string
  /** Browser mode with --host: whether the page must ask for the access password. */
  passwordRequired: boolean
}

export const appProcedures = {
  'app.info': call<AppInfo>()(z.object({}).strict()),
  /** Every initialisation state from the start, then live ones until ready or error. */
  'app.initProgress': stream<InitState, InitState>()(z.object({}).strict()),
  /** Run initialisation again after an error. */
  'app.retryInit': call<InitState>()(z.object({}).strict()),
  /** Round-trip a value; used by the connection check and the bridge benchmark. */
  'diag.echo': call<{ value: string }>()(z.object({ value: z.string().max(1_000_000) }).strict()),
  /** Emit `count` small events; used by the bridge benchmark and tests. */
  'diag.count': stream<{ n: number }, { count: number }>()(
    z.object({ count: z.number().int().min(0).max(10_000_000), delayMs: z.number().int().min(0).max(60_000).optional() }).strict()
  )
} as const
