/** What the Local models page shows of the built-in engine (plain data over the bridge). */
export interface BuiltinModelInfo {
  id: string
  name: string
  source: 'user' | 'library' | 'ollama' | 'lmstudio'
  path: string
  sizeBytes: number
  loaded: boolean
  contextSize?: number
}

export interface BuiltinLoadedInfo {
  modelId: string
  name: string
  contextSize: number
  /** Why the context is what it is: the user's, the model's own, capped by default, or capped to fit memory. */
  contextReason: 'user' | 'trained' | 'capped-default' | 'capped-memory'
  trainedContextSize?: number
  weightsBytes: number
  contextBytes: number
  expiresAt?: number
}

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
}
