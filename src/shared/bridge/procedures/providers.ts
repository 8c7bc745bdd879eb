import { z } from 'zod'
import { call } from '../define'
import { endpointUrlSchema } from '../../data/endpoint-url'
import { customProviderSchema, type CustomProvider } from '../../data/custom-provider'

/**
 * The names a credential field can have: the union of the fields the provider specs declare
 * (src/core/runtime/provider-specs; a test keeps the two equal).
 */
export const CREDENTIAL_FIELD_NAMES = ['accessKeyId', 'secretAccessKey', 'sessionToken', 'region', 'accountId', 'apiVersion', 'project', 'location', 'serviceAccountJson'] as const

/** A credential beyond the API key (AWS pair, service account, account id…), kept in the keychain as `<provider>.<name>`. */
export interface CredentialField {
  name: (typeof CREDENTIAL_FIELD_NAMES)[number]
  secret: boolean
  required: boolean
  /** Whether a value is stored (never the value of a secret field). */
  set: boolean
  /** The stored value of a non-secret field (region, project…), to show it. */
  value?: string
}

/** A provider as Settings and the model picker show it. Keys never leave the core: only hasKey/last4. */
export interface ProviderSummary {
  id: string
  name: string
  sdkType: string
  enabled: boolean
  hasKey: boolean
  last4?: string
  /** False when no OS keychain answered: the key lives in memory until the app quits. */
  keyPersistent: boolean
  /** Why keys are kept in memory only, and how to keep them (when `keyPersistent` is false). */
  keyMemoryReason?: string
  /** The environment variable the key comes from (none stored; browser mode reads `<PROVIDER>_API_KEY`). */
  keyEnv?: string
  baseURL?: string
  defaultBaseURL?: string
  proxyPlaceholder?: string
  apiKeyUrl?: string
  /** A local server (Ollama, LM Studio, vLLM, Xinference): no key needed. */
  local: boolean
  /** For local servers: whether it answers now. */
  running?: boolean
  /** For local servers: the address it is looked for at (the Local models page's, or the default). */
  serverAddress?: string
  /** Usable in chat now: has a key (or needs none) and, if local, is running. */
  available: boolean
  canFetchModels: boolean
  /** Whether the provider takes a plain API key at all (Bedrock and Vertex do not). */
  usesApiKey: boolean
  credentialFields: CredentialField[]
  /** A provider the user added (Settings → Providers → Add custom provider): its definition. */
  custom?: CustomProvider
}

export interface PickerModel {
  id: string
  displayName: string
  providerId: string
  type: string
  enabled: boolean
  source: 'builtin' | 'remote' | 'custom'
  contextWindowTokens?: number
  maxOutput?: number
  abilities: { vision?: boolean; functionCall?: boolean; reasoning?: boolean; search?: boolean; imageOutput?: boolean }
  /** Price per million tokens in `currency`. */
  price?: { input?: number; output?: number; currency: string }
  extendParams?: string[]
}

export interface PickerGroup {
  provider: ProviderSummary
  models: PickerModel[]
}

/** Settings' provider list and the model picker's groups, from one call (one pass over the keychain). */
export interface ProviderList {
  providers: ProviderSummary[]
  picker: PickerGroup[]
}

/** The answer of "Fetch model list". */
export interface FetchedModels {
  models: PickerModel[]
  warning?: string
  /** How many models the server listed. */
  listed: number
  /** Ids the server lists now and did not before (or not in the built-in list, on a first fetch). */
  added: string[]
  /** Ids fetched before that the server no longer lists. */
  removed: string[]
}

const providerId = z.string().min(1).max(100).regex(/^[a-z0-9][a-z0-9_-]*$/, 'must be a provider id such as openai or ollama')

export const providerProcedures = {
  /**
   * Every provider (Settings) and the picker's groups: providers with their models of `type`
   * (enabled flag on each); the picker holds only the available providers unless `all`.
   */
  'providers.list': call<ProviderList>()(z.object({ all: z.boolean().optional(), type: z.enum(['chat', 'image']).optional() }).strict()),
  'providers.models': call<PickerModel[]>()(z.object({ providerId }).strict()),
  /** Stores a key in the OS keychain (write-only). */
  'providers.setKey': call<ProviderSummary>()(z.object({ providerId, apiKey: z.string().trim().min(1, 'the key is empty').max(10_000) }).strict()),
  'providers.removeKey': call<ProviderSummary>()(z.object({ providerId }).strict()),
  /** Credentials beyond the key (Bedrock access key pair, Vertex service account…); empty removes. */
  'providers.setCredential': call<ProviderSummary>()(
    z
      .object({
        providerId,
        name: z.enum(CREDENTIAL_FIELD_NAMES),
        value: z.string().max(20_000)
      })
      .strict()
  ),
  'providers.update': call<ProviderSummary>()(
    z
      .object({
        providerId,
        enabled: z.boolean().optional(),
        baseURL: z.union([z.literal(''), endpointUrlSchema]).optional()
      })
      .strict()
  ),
  'providers.setModelEnabled': call<PickerModel[]>()(z.object({ providerId, modelId: z.string().min(1).max(300), enabled: z.boolean() }).strict()),
  /** Several models switched at once (Settings' "enable the fetched models"). */
  'providers.setModelsEnabled': call<PickerModel[]>()(
    z.object({ providerId, modelIds: z.array(z.string().min(1).max(300)).min(1).max(5_000), enabled: z.boolean() }).strict()
  ),
  /**
   * Fetches the provider's model list and keeps it with the settings; `added` and `removed`
   * compare it with the list fetched before (what the user sees changed).
   */
  'providers.fetchModels': call<FetchedModels>()(z.object({ providerId }).strict()),
  /** Adds (`create`) or changes a custom OpenAI-compatible provider; `apiKey` goes to the keychain. */
  'providers.saveCustom': call<ProviderSummary>()(
    z.object({ custom: customProviderSchema, create: z.boolean(), apiKey: z.string().trim().max(10_000).optional() }).strict()
  ),
  /** Removes a custom provider, its settings and its key. */
  'providers.removeCustom': call<{ ok: true }>()(z.object({ providerId }).strict()),
  /** Test connection: one tiny request with the provider's check model. */
  'providers.test': call<{ ok: true; modelId: string; ms: number }>()(z.object({ providerId, modelId: z.string().min(1).max(300).optional() }).strict())
} as const
