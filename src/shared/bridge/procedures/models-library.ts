import { z } from 'zod'
import { call, stream } from '../define'
import type { DownloadSnapshot, LibraryEntry, RecommendedList, RepoDetails } from '../../models-library/types'

const downloadId = z.string().min(1).max(100)
/** `hf:owner/repo[:QUANT|:file.gguf]` or `ollama:name[:tag]`. */
const modelRef = z
  .string()
  .trim()
  .min(4)
  .max(400)
  .regex(/^(hf|ollama):[\w.\-/:]+$/, 'a model is hf:owner/repo[:QUANT] or ollama:name[:tag]')
const contextTokens = z.number().int().min(256).max(10_000_000).optional()

export const modelsLibraryProcedures = {
  /** Hugging Face GGUF repositories, the Ollama library and the models on disk in one list; a source that fails is reported beside the others. */
  'models.search': call<{ entries: LibraryEntry[]; errors: Array<{ source: string; message: string }> }>()(
    z.object({ query: z.string().max(200), sources: z.array(z.enum(['hf', 'ollama', 'disk'])).max(3).optional() }).strict()
  ),
  /** A repository's GGUF models (split files as one) with sizes, quantisation and the memory fit at a context. */
  'models.repo': call<RepoDetails>()(z.object({ repo: z.string().trim().regex(/^[\w.-]+\/[\w.-]+$/).max(200), contextTokens }).strict()),
  /** Starts a download (or returns the one already running for that model); `force` downloads a model that does not fit. */
  'models.download.start': call<DownloadSnapshot & { taskId: string }>()(z.object({ ref: modelRef, force: z.boolean().optional(), contextTokens }).strict()),
  /** The download's state, then at most ~10 updates a second, ending when it stops. */
  'models.download.watch': stream<DownloadSnapshot, DownloadSnapshot | null>()(z.object({ id: downloadId }).strict()),
  'models.download.list': call<DownloadSnapshot[]>()(z.object({}).strict()),
  'models.download.pause': call<{ paused: boolean }>()(z.object({ id: downloadId }).strict()),
  'models.download.resume': call<DownloadSnapshot & { taskId: string }>()(z.object({ id: downloadId }).strict()),
  /** Stops a download and removes its partial bytes. */
  'models.download.cancel': call<{ cancelled: boolean }>()(z.object({ id: downloadId }).strict()),
  'models.download.dismiss': call<{ dismissed: boolean }>()(z.object({ id: downloadId }).strict()),
  /** The curated small instruction models for a first offline chat, with this machine's fit and whether each is downloaded. */
  'models.recommended': call<RecommendedList>()(z.object({}).strict()),
  'models.onDisk': call<LibraryEntry[]>()(z.object({}).strict()),
  /** Deletes a model file; one of Ollama's or LM Studio's only with `confirmOtherApp`. */
  'models.remove': call<{ deleted: string }>()(z.object({ path: z.string().min(1).max(4_000), confirmOtherApp: z.boolean().optional() }).strict()),
  'models.settings.get': call<LibrarySettingsView>()(z.object({}).strict()),
  /** The hub's mirror address (null for huggingface.co), the Ollama registry's (null for registry.ollama.ai), the proxy (null: HTTPS_PROXY or none) and the Hugging Face token (kept in the keychain; null removes it). */
  'models.settings.set': call<LibrarySettingsView>()(
    z
      .object({
        hubEndpoint: z.string().trim().max(2_000).nullable().optional(),
        proxy: z.string().trim().max(2_000).nullable().optional(),
        ollamaRegistry: z.string().trim().max(2_000).nullable().optional(),
        hfToken: z.string().trim().max(400).nullable().optional()
      })
      .strict()
  )
} as const

export interface LibrarySettingsView {
  hubEndpoint: string | null
  /** The proxy for hub requests and downloads; null when none is set (HTTPS_PROXY / HTTP_PROXY then apply). */
  proxy: string | null
  /** Where `ollama:` models are downloaded from without Ollama; null for registry.ollama.ai. */
  ollamaRegistry: string | null
  hasHfToken: boolean
}
