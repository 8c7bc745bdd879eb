import type { Pricing } from '../pricing/types'
import type { ImageModelParameters } from '../image-params/types'

/** product.md §3 "Model entry". */
export type ModelType = 'chat' | 'image' | 'embedding' | 'tts' | 'stt' | 'realtime'

export const MODEL_TYPES: readonly ModelType[] = ['chat', 'image', 'embedding', 'tts', 'stt', 'realtime']

export interface ModelAbilities {
  functionCall?: boolean
  reasoning?: boolean
  vision?: boolean
  search?: boolean
  imageOutput?: boolean
  structuredOutput?: boolean
  audio?: boolean
  video?: boolean
}

export interface ModelSettings {
  searchImpl?: 'params' | 'internal'
  searchProvider?: string
  extendParams?: string[]
  disabledParams?: string[]
}

/** One entry of a provider's built-in list, as stored in catalogue/models/<id>.json. */
export interface CatalogueModel {
  id: string
  displayName: string
  type: ModelType
  /** Always present in our files (false unless the source said true). */
  enabled: boolean
  organization?: string
  family?: string
  generation?: string
  contextWindowTokens?: number
  maxOutput?: number
  /** Embeddings only. */
  maxDimension?: number
  /** YYYY-MM-DD (or whatever text the source had). */
  releasedAt?: string
  knowledgeCutoff?: string
  /** Always present in our files ({} when the source had none). */
  abilities: ModelAbilities
  settings?: ModelSettings
  /** deploymentName is used by Azure. */
  config?: { deploymentName?: string }
  pricing?: Pricing
  /** Image models only. */
  parameters?: ImageModelParameters
  /** Our own text, when we write one; the catalogue ships none. */
  description?: string
}

/** A catalogue/models/<id>.json file. */
export interface ProviderCatalogueFile {
  format: 1
  providerId: string
  models: CatalogueModel[]
}

/** Which runtime family serves a provider. */
export type SdkType = 'openai' | 'anthropic' | 'google' | 'azure' | 'azureai' | 'bedrock' | 'cloudflare' | 'huggingface' | 'ollama' | 'router'

/** A provider card from catalogue/providers.json. */
export interface ProviderCard {
  id: string
  name: string
  url: string
  modelsUrl?: string
  apiKeyUrl?: string
  /** Absent for providers whose endpoint the user must give (Azure, Bedrock, Cloudflare…). */
  defaultBaseURL?: string
  /** Absent: the generic OpenAI-compatible adapter (or a provider-specific one by id). */
  sdkType?: SdkType
  /** A cheap model for the connection check. */
  checkModel?: string
  proxyPlaceholder?: string
  /** Whether the provider's model list can be fetched. */
  showModelFetcher: boolean
  supportResponsesApi: boolean
  /** The provider's API refuses browser (CORS) requests. */
  disableBrowserRequest?: boolean
  /** False for providers that need no key (local Ollama). */
  showApiKey?: boolean
  modelCount: number
  modelTypes: Partial<Record<ModelType, number>>
}

/** An entry of the merged flat list (product.md §1). */
export interface MergedModel extends CatalogueModel {
  providerId: string
  source: 'builtin' | 'remote' | 'custom'
}
