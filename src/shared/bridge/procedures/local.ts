import { z } from 'zod'
import { call, stream } from '../define'
import { LOCAL_SERVER_KINDS, type LocalServerKind, type LocalServerStatus } from '../../local/local-servers'
import type { DiskSpace, InstalledModel, ModelDetails, RunningModel } from '../../local/ollama-models'
import type { PullSnapshot } from '../../local/pull-progress'

const kind = z.enum(LOCAL_SERVER_KINDS as [LocalServerKind, ...LocalServerKind[]])
const baseUrl = z.string().trim().min(1).max(2_000).optional()
/** name or name:tag, with an optional namespace or registry host (`hf.co/org/repo:Q4_K_M`). */
const modelName = z
  .string()
  .trim()
  .min(1)
  .max(300)
  .regex(/^[\w.\-/:]+$/, 'a model name is letters, digits and . - _ / : (for example llama3.2:3b)')
const pullId = z.string().min(1).max(100)

export const localProcedures = {
  /** Probe the local servers (all four by default): running, version, model count. */
  'local.detect': call<LocalServerStatus[]>()(z.object({ kinds: z.array(kind).max(4).optional() }).strict()),
  /** Where each server is looked for, and whether the user set it. */
  /** Set a server's base URL (null resets to the default port); answers with a fresh probe. */
  'local.setBaseUrl': call<LocalServerStatus>()(z.object({ kind, baseUrl: z.string().max(2_000).nullable() }).strict()),
  'local.ollama.models': call<InstalledModel[]>()(z.object({ baseUrl }).strict()),
  'local.ollama.running': call<RunningModel[]>()(z.object({ baseUrl }).strict()),
  'local.ollama.show': call<ModelDetails>()(z.object({ model: modelName, baseUrl }).strict()),
  'local.ollama.delete': call<{ deleted: string }>()(z.object({ model: modelName, baseUrl }).strict()),
  /** Free space where a local Ollama keeps models; null for a remote server. */
  'local.disk': call<DiskSpace | null>()(z.object({ baseUrl }).strict()),
  /** Start a pull owned by the core (or get the one already running for that model); `taskId` is its task to follow. */
  'local.pull.start': call<PullSnapshot & { taskId: string }>()(z.object({ model: modelName, baseUrl, insecure: z.boolean().optional() }).strict()),
  /** The pull's current state, then at most ~10 updates a second, ending with its exact final state. */
  'local.pull.watch': stream<PullSnapshot, PullSnapshot | null>()(z.object({ id: pullId }).strict()),
  'local.pull.cancel': call<{ cancelled: boolean }>()(z.object({ id: pullId }).strict()),
  /** Forget a finished pull. */
  'local.pull.dismiss': call<{ dismissed: boolean }>()(z.object({ id: pullId }).strict())
} as const
