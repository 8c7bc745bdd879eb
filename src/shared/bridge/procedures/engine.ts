import { z } from 'zod'
import { call } from '../define'
import { ENGINE_LIMITS, type BuiltinLoadedInfo, type BuiltinPlanInfo, type BuiltinStatus } from '../../engine/builtin-status'

const model = z.string().trim().min(1).max(4_000)
const contextSize = z.number().int().min(ENGINE_LIMITS.minContext).max(ENGINE_LIMITS.maxContext)
const path = z.string().trim().min(1).max(4_000).refine((p) => p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p), 'an absolute path')

export const engineProcedures = {
  /** Models on disk, what the engine has loaded and its real memory use. */
  'engine.status': call<BuiltinStatus>()(z.object({}).strict()),
  /** Load a model now (it also loads on first use); `loadAnyway` overrides the memory budget's refusal. */
  'engine.load': call<BuiltinLoadedInfo>()(z.object({ model, loadAnyway: z.boolean().optional() }).strict()),
  'engine.unload': call<{ unloaded: boolean }>()(z.object({ model }).strict()),
  /** Add or remove a .gguf file or a folder of them (used in place, never copied). */
  'engine.addPath': call<BuiltinStatus>()(z.object({ path }).strict()),
  'engine.removePath': call<BuiltinStatus>()(z.object({ path }).strict()),
  /** What loading a model would take at this context length (default: the one it would load with), from its GGUF header. */
  'engine.plan': call<BuiltinPlanInfo>()(z.object({ model, contextSize: contextSize.optional() }).strict()),
  /**
   * The engine settings; null puts a default back. Keep-alive applies at once to loaded models,
   * threads, budget and context length at the next load.
   */
  'engine.setSettings': call<BuiltinStatus>()(
    z
      .object({
        keepAliveMs: z.number().int().min(-1).max(ENGINE_LIMITS.maxKeepAliveMs).optional(),
        memoryBudgetBytes: z.number().int().min(ENGINE_LIMITS.minBudgetBytes).nullable().optional(),
        threads: z.number().int().min(1).max(256).nullable().optional(),
        contextSize: z.object({ model, size: contextSize.nullable() }).strict().optional()
      })
      .strict()
  )
} as const
