import { z } from 'zod'
import type { VoiceSettings } from '../bridge/procedures/speech'
import { customProvidersSchema, type CustomProvider } from './custom-provider'

/**
 * App-wide preferences kept in the database's settings table: exactly these keys. Theme and
 * language are not here on purpose: the renderer keeps them in localStorage
 * (`switchboard.theme`, `switchboard.language`) because the first paint needs them before the
 * bridge is connected, and they belong to that browser/window, not to the data folder
 * (decision 23 in docs/decisions.md).
 */
export interface AppSettings {
  /** Read aloud and dictation models (Settings → Voice). */
  voice?: VoiceSettings
  /** Scene "Summary Topic Title": the model that names new conversations; absent → the chat model. */
  titleModel?: ModelRef
  /** Each scene's model (Settings → Scenes), keyed by the scene's name; absent → its default. */
  sceneModels?: Record<string, ModelRef>
  /** xAI results per search (held to 1..30 on the wire). */
  searchMaxResults?: number
  /** Anthropic web-search tool: searches per reply. */
  searchMaxUses?: number
  /** A local model's context length (Ollama num_ctx) chosen by the user, keyed `provider/model`. */
  contextLengths?: Record<string, number>
  /** Each knowledge base's rerank model, keyed by the base's id; absent → no reranking. */
  knowledgeRerank?: Record<string, ModelRef>
  /** The user's own OpenAI-compatible providers (Settings → Providers → Add custom provider); written only by ProviderService. */
  customProviders?: CustomProvider[]
}

export interface ModelRef {
  providerId: string
  modelId: string
}

const id = z.string().min(1).max(300)
const modelRef = z.object({ providerId: id, modelId: id })

/** Each stored key's shape; reading and writing both go through these. */
export const appSettingsSchemas = {
  voice: z.object({ tts: modelRef.extend({ voice: z.string().min(1).max(200) }).optional(), stt: modelRef.optional() }),
  titleModel: modelRef,
  sceneModels: z.record(z.string().min(1).max(100), modelRef),
  // Positive counts; each provider's own bounds (xAI 1..30) are applied on the wire by the runtime.
  searchMaxResults: z.number().int().min(1).max(10_000),
  searchMaxUses: z.number().int().min(1).max(10_000),
  // Clamped to 2048..128000 on the wire (providers.md), so a bigger wish is kept as said.
  contextLengths: z.record(z.string().min(1).max(400), z.number().int().min(1).max(10_000_000)),
  knowledgeRerank: z.record(z.string().min(1).max(64), modelRef),
  customProviders: customProvidersSchema
} satisfies { [K in keyof Required<AppSettings>]: z.ZodType<Required<AppSettings>[K]> }

/** A change to the settings: a key set to `null` goes back to its default. */
export const appSettingsPatchSchema = z.strictObject(
  {
    voice: appSettingsSchemas.voice.nullable().optional(),
    titleModel: appSettingsSchemas.titleModel.nullable().optional(),
    sceneModels: appSettingsSchemas.sceneModels.nullable().optional(),
    searchMaxResults: appSettingsSchemas.searchMaxResults.nullable().optional(),
    searchMaxUses: appSettingsSchemas.searchMaxUses.nullable().optional(),
    contextLengths: appSettingsSchemas.contextLengths.nullable().optional(),
    knowledgeRerank: appSettingsSchemas.knowledgeRerank.nullable().optional()
  },
  {
    error: (issue) => {
      if (issue.code !== 'unrecognized_keys') return undefined
      const secret = issue.keys.find((key) => /api[-_]?key|secret|password/i.test(key))
      return secret
        ? `Settings cannot hold ${JSON.stringify(secret)}: keys and passwords belong in the keychain (Settings → Providers).`
        : `Settings has no ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}; it holds ${Object.keys(appSettingsSchemas).join(', ')}.`
    }
  }
)
export type AppSettingsPatch = z.infer<typeof appSettingsPatchSchema>

/**
 * The typed settings from what the table holds. A value that does not match its key's schema
 * (written by an older version, or by hand) is left out, so it reads as "not set" instead of
 * reaching the app as something it is not; unknown keys are ignored.
 */
export function readAppSettings(stored: Readonly<Record<string, unknown>>): AppSettings {
  const settings: Record<string, unknown> = {}
  for (const [key, schema] of Object.entries(appSettingsSchemas)) {
    const parsed = (schema as z.ZodType).safeParse(stored[key])
    if (parsed.success) settings[key] = parsed.data
  }
  return settings as AppSettings
}
