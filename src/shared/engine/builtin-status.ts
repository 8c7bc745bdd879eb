/** What the Local models page shows of the built-in engine (plain data over the bridge). */
export interface BuiltinModelInfo {
  id: string
  name: string
  source: 'user' | 'library' | 'ollama' | 'lmstudio'
  path: string
  sizeBytes: number
  loaded: boolean
  contextSize?: number
  /** A vision projector (mmproj) lies beside it; the built-in engine cannot use it (text only). */
  projector?: boolean
}

export interface BuiltinLoadedInfo {
  modelId: string
  name: string
  /** Per slot: what one request has. */
  contextSize: number
  /** How many requests it serves at once (from the memory). */
  slots?: number
  /** Why the context is what it is: the user's, the model's own, capped by default, or capped to fit memory. */
  contextReason: 'user' | 'trained' | 'capped-default' | 'capped-memory'
  trainedContextSize?: number
  weightsBytes: number
  contextBytes: number
  expiresAt?: number
}

/** The engine settings the user chose (unset: the default of `BuiltinStatus.defaults`). */
export interface BuiltinSettings {
  /** How long a model stays loaded after its last use; 0 unloads at once, -1 keeps it until unloaded. */
  keepAliveMs: number
  memoryBudgetBytes?: number
  threads?: number
  /** Context length per model id. */
  contextSizes: Record<string, number>
}

/** What loading a model would take (`engine.plan`): the memory estimate the page shows beside a context length. */
export interface BuiltinPlanInfo {
  modelId: string
  name: string
  /** Per slot; the memory figures hold `slots` of it. */
  contextSize: number
  slots?: number
  contextReason: BuiltinLoadedInfo['contextReason']
  trainedContextSize?: number
  weightsBytes: number
  contextBytes: number
  neededBytes: number
  budgetBytes: number
}

/** Limits the bridge checks and the page shows. */
export const ENGINE_LIMITS = {
  minContext: 512,
  maxContext: 1_048_576,
  minBudgetBytes: 256 * 1024 * 1024,
  /** A week: longer is "keep loaded" (-1). */
  maxKeepAliveMs: 7 * 24 * 60 * 60_000
} as const

export interface BuiltinStatus {
  models: BuiltinModelInfo[]
  problems: Array<{ source: string; name?: string; path: string; message: string }>
  running: boolean
  /** The engine process's resident memory, measured by the engine: what the loaded models really use. */
  rssBytes?: number
  budgetBytes: number
  totalBytes: number
  threads: number
  spawnKind: string
  loaded: BuiltinLoadedInfo[]
  /** Files and folders the user added. */
  modelPaths: string[]
  settings: BuiltinSettings
  /** What applies where the user set nothing. */
  defaults: { budgetBytes: number; threads: number; cpuCount: number }
}
