/** The local model servers Switchboard looks for (providers.md §9 and the Ollama default). */
export type LocalServerKind = 'ollama' | 'lmstudio' | 'vllm' | 'xinference'

export const LOCAL_SERVER_KINDS: readonly LocalServerKind[] = ['ollama', 'lmstudio', 'vllm', 'xinference']

/** Where each server listens when nobody changed it. */
export const DEFAULT_LOCAL_ENDPOINTS: Record<LocalServerKind, string> = {
  ollama: 'http://127.0.0.1:11434',
  lmstudio: 'http://127.0.0.1:1234',
  vllm: 'http://127.0.0.1:8000',
  xinference: 'http://127.0.0.1:9997'
}

export const LOCAL_SERVER_LABELS: Record<LocalServerKind, string> = {
  ollama: 'Ollama',
  lmstudio: 'LM Studio',
  vllm: 'vLLM',
  xinference: 'Xinference'
}

/** One probe of one server. */
export interface LocalServerStatus {
  kind: LocalServerKind
  baseUrl: string
  /** The base URL was set by the user (not the default). */
  custom: boolean
  running: boolean
  /** Reported by the server; LM Studio does not report one. */
  version?: string
  /** Models the server offers, when its list answered. */
  modelCount?: number
  /** Why it is not running, as a code the UI translates… */
  reasonCode?: 'refused' | 'timeout' | 'unresolved' | 'wrongServer' | 'unreachable'
  /** …and in English with the detail (a tooltip, logs). */
  reason?: string
  latencyMs?: number
  checkedAt: number
}
