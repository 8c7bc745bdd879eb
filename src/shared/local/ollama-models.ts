/** A model installed in Ollama (/api/tags). Sizes are bytes; dates are ISO strings. */
export interface InstalledModel {
  name: string
  sizeBytes: number
  digest: string
  family?: string
  families?: string[]
  parameterSize?: string
  quantization?: string
  format?: string
  modifiedAt: string
}

/** A model loaded in memory (/api/ps). */
export interface RunningModel {
  name: string
  /** Total memory the loaded model takes. */
  sizeBytes: number
  /** The part of it in GPU memory. */
  sizeVramBytes: number
  expiresAt?: string
  contextLength?: number
  parameterSize?: string
  quantization?: string
}

/** Details of one model (/api/show). */
export interface ModelDetails {
  name: string
  family?: string
  parameterSize?: string
  quantization?: string
  format?: string
  architecture?: string
  contextLength?: number
  embeddingLength?: number
  capabilities: string[]
  license?: string
  parameters?: string
  template?: string
  modifiedAt?: string
}

/** Free space where the server keeps its models, when it can be known (a local server). */
export interface DiskSpace {
  path: string
  freeBytes: number
  totalBytes: number
}
