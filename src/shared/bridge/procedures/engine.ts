import { z } from 'zod'
import { call } from '../define'
import type { BuiltinLoadedInfo, BuiltinStatus } from '../../engine/builtin-status'

const model = z.string().trim().min(1).max(4_000)
const path = z.string().trim().min(1).max(4_000).refine((p) => p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p), 'an absolute path')

export const engineProcedures = {
  /** Models on disk, what the engine has loaded and its real memory use. */
  'engine.status': call<BuiltinStatus>()(z.object({}).strict()),
  /** Load a model now (it also loads on first use); `loadAnyway` overrides the memory budget's refusal. */
  'engine.load': call<BuiltinLoadedInfo>()(z.object({ model, loadAnyway: z.boolean().optional() }).strict()),
  'engine.unload': call<{ unloaded: boolean }>()(z.object({ model }).strict()),
  /** Add or remove a .gguf file or a folder of them (used in place, never copied). */
  'engine.addPath': call<BuiltinStatus>()(z.object({ path }).strict()),
  'engine.removePath': call<BuiltinStatus>()(z.object({ path }).strict())
} as const
