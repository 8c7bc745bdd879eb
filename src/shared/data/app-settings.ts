import { z } from 'zod'
import type { VoiceSettings } from '../bridge/procedures/speech'
import { LOCAL_SERVER_KINDS, type LocalServerKind } from '../local/local-servers'
import type { ToolServerConfig, ToolSettings } from '../tools/types'
import { customProvidersSchema, type CustomProvider } from './custom-provider'
import type { JsonValue } from './json'

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

// ------------------------------------------------------------ the features' own keys

/**
 * The rest of the settings table: keys a feature writes for itself and that Settings
 * (data.settings.get / set) neither shows nor changes. They are defined here with the Settings
 * keys, so that the table has one typed definition, and read through the same cache
 * (SettingsRepository.features()).
 */
export interface FeatureSettings {
  /** The local API (src/core/gateway): its switch, address, keys (hashes only), aliases, origins. */
  localApi?: LocalApiConfig
  /** The configured tool servers (Settings → Tools): names of secrets only, the values are in the keychain. */
  toolServers?: ToolServerConfig[]
  /** The tools' choices (step limit, approvals, per-agent tools, search provider); absent parts are their defaults. */
  tools?: Partial<ToolSettings>
  /** A local server's base URL set by the user (Settings → Local models); absent → its default port. */
  ollama?: string
  lmstudio?: string
  vllm?: string
  xinference?: string
}

/**
 * The features' keys an export file may carry (Settings → Tools, checked by the import gate,
 * core/security/imported-settings.ts). The local API's row never travels: it holds key hashes and
 * the address the API listens on, which are this machine's.
 */
export const TRANSFERABLE_FEATURE_KEYS = ['toolServers', 'tools'] as const satisfies readonly (keyof FeatureSettings)[]

/** Every key of the settings table, typed. */
export type StoredSettings = AppSettings & FeatureSettings

/** A typed change to the table: each key as its definition types it; `null` removes the key. */
export type SettingsChange = { [K in keyof StoredSettings]?: StoredSettings[K] | null }

export const DEFAULT_LOCAL_API_PORT = 4315

const storedApiKeySchema = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  createdAt: z.number(),
  revokedAt: z.number().optional(),
  allowedModels: z.array(z.string()).optional(),
  rateLimitPerMinute: z.number().optional(),
  spendCapUsd: z.number().optional()
})

/** The local API's row; every part has its default, so an absent row is the API off on loopback. */
export const localApiConfigSchema = z.object({
  enabled: z.boolean().default(false),
  host: z.string().default('127.0.0.1'),
  port: z.number().int().min(0).max(65_535).default(DEFAULT_LOCAL_API_PORT),
  keys: z.array(storedApiKeySchema).default([]),
  aliases: z.record(z.string(), z.string()).default({}),
  allowedOrigins: z.array(z.string()).default([]),
  allowedHosts: z.array(z.string()).default([])
})
export type LocalApiConfig = z.infer<typeof localApiConfigSchema>

/**
 * One stored tool server, by shape: what ToolService writes (its own input checks, and
 * `tools.import` of an `mcpServers` file, bound the values). The import gate
 * (core/security/imported-settings.ts) holds a file's servers to tighter bounds on top.
 */
export const storedToolServerSchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  transport: z.enum(['stdio', 'http', 'sse']),
  command: z.string().optional(),
  args: z.array(z.string()).optional(),
  cwd: z.string().optional(),
  url: z.string().optional(),
  secretEnv: z.array(z.string()).optional(),
  secretHeaders: z.array(z.string()).optional(),
  enabled: z.boolean(),
  timeoutMs: z.number().int().positive().optional(),
  roots: z.array(z.string()).optional()
}) satisfies z.ZodType<ToolServerConfig>

/** Each part of the stored tool settings, as tools.updateSettings / setApproval / setAgentTools write it. */
export const storedToolSettingsSchemas = {
  stepLimit: z.number().int().min(1).max(100),
  approvals: z.record(z.string(), z.enum(['ask', 'allow', 'never'])),
  agents: z.record(z.string(), z.object({ servers: z.array(z.string()), builtins: z.array(z.enum(['web_search', 'read_web_page'])) })),
  search: z.object({ provider: z.enum(['searxng', 'tavily', 'brave', 'exa', 'jina', 'google']), url: z.string().optional(), googleCx: z.string().optional() }),
  allowPrivateAddresses: z.boolean()
} satisfies { [K in keyof ToolSettings]: z.ZodType<ToolSettings[K]> }

/**
 * A local server's stored base URL: a non-empty string, as `local-servers.json` was read before
 * (decision 158). The address is normalised when it is set (local.setBaseUrl), not when read.
 */
export const localServerUrlSchema = z.string().min(1)

/** A stored value that did not match its definition, by where it stands (`localApi`, `toolServers.2`, `tools.agents`). */
export interface RefusedStoredSetting {
  key: string
  reason: string
}

const firstIssue = (error: z.ZodError): string => {
  const issue = error.issues[0]
  if (!issue) return 'not valid'
  return `${issue.path.length ? `${issue.path.join('.')}: ` : ''}${issue.message}`
}

/**
 * The features' keys from what the table holds, each checked against its definition. What does
 * not match is left out and named in `refused`: a whole `localApi` row (it reads as the defaults),
 * one server of `toolServers` (the others stay usable), one part of `tools` (the others stay as
 * chosen). Nothing malformed reaches a feature as something it is not.
 */
export function readFeatureSettings(stored: Readonly<Record<string, unknown>>): { settings: FeatureSettings; refused: RefusedStoredSetting[] } {
  const settings: FeatureSettings = {}
  const refused: RefusedStoredSetting[] = []
  if (stored['localApi'] !== undefined) {
    const parsed = localApiConfigSchema.safeParse(stored['localApi'])
    if (parsed.success) settings.localApi = parsed.data
    else refused.push({ key: 'localApi', reason: firstIssue(parsed.error) })
  }
  const servers = stored['toolServers']
  if (servers !== undefined) {
    if (!Array.isArray(servers)) refused.push({ key: 'toolServers', reason: 'not a list of tool servers' })
    else
      settings.toolServers = servers.flatMap((server, index) => {
        const parsed = storedToolServerSchema.safeParse(server)
        if (parsed.success) return [parsed.data]
        refused.push({ key: `toolServers.${index}`, reason: firstIssue(parsed.error) })
        return []
      })
  }
  const tools = stored['tools']
  if (tools !== undefined) {
    if (!tools || typeof tools !== 'object' || Array.isArray(tools)) refused.push({ key: 'tools', reason: 'not an object of tool settings' })
    else {
      const kept: Record<string, unknown> = {}
      for (const [part, schema] of Object.entries(storedToolSettingsSchemas)) {
        const value = (tools as Record<string, unknown>)[part]
        if (value === undefined) continue
        const parsed = (schema as z.ZodType).safeParse(value)
        if (parsed.success) kept[part] = parsed.data
        else refused.push({ key: `tools.${part}`, reason: firstIssue(parsed.error) })
      }
      settings.tools = kept as Partial<ToolSettings>
    }
  }
  for (const kind of LOCAL_SERVER_KINDS) readLocalServerUrl(stored, kind, settings, refused)
  return { settings, refused }
}

function readLocalServerUrl(stored: Readonly<Record<string, unknown>>, kind: LocalServerKind, settings: FeatureSettings, refused: RefusedStoredSetting[]): void {
  if (stored[kind] === undefined) return
  const parsed = localServerUrlSchema.safeParse(stored[kind])
  if (parsed.success) settings[kind] = parsed.data
  else refused.push({ key: kind, reason: firstIssue(parsed.error) })
}

/** A typed change as the table's rows take it (the values are plain JSON by their definitions). */
export const settingsRows = (change: SettingsChange): Record<string, JsonValue | undefined> => change as unknown as Record<string, JsonValue | undefined>
