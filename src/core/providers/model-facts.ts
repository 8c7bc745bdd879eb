/** What the chat service needs to know about a model (from the catalogue; `ProviderService.modelFacts`). */
export interface ModelFacts {
  contextWindowTokens?: number
  maxOutput?: number
  vision?: boolean
  /** What the chat controls are derived from (src/shared/chat/model-controls.ts). */
  extendParams?: string[]
  search?: boolean
  reasoning?: boolean
  searchImpl?: 'params' | 'internal'
}
