import type { JsonObject } from './json'

/** Model parameters an agent (or a conversation) sends with each request. */
export interface ModelParameters {
  temperature?: number
  topP?: number
  maxOutputTokens?: number
  presencePenalty?: number
  frequencyPenalty?: number
  reasoningEffort?: string
  thinkingBudget?: number
  // Chat controls (src/shared/chat/model-controls.ts says which a model offers).
  /** Thinking on/off; undefined follows the model's default. */
  thinking?: boolean
  /** Prompt caching (Anthropic `disableContextCaching`); undefined is on. */
  contextCaching?: boolean
  /** Web search: off, on, or decided per message by the Search Intent Recognition scene. */
  search?: 'off' | 'on' | 'auto'
  /** How many earlier messages to send; undefined or 0 sends them all. */
  historyCount?: number
  /** Summarise older messages instead of refusing a conversation longer than the window. */
  autoCompress?: boolean
  /** Compress once the history passes this fraction of the window (0.1..1, default 1). */
  compressAt?: number
  /** Tell the model how to write artifacts (src/shared/artifacts/artifact-kinds.ts). */
  artifacts?: boolean
  /** Anything provider-specific (extendParams of product.md §3). */
  extra?: JsonObject
}

export interface Agent {
  id: string
  name: string
  /** An emoji or a file id (`file:<id>`) for an uploaded picture. */
  avatar?: string
  description?: string
  systemPrompt: string
  providerId?: string
  modelId?: string
  parameters: ModelParameters
  tags: string[]
  createdAt: number
  updatedAt: number
}

export type AgentInput = Omit<Agent, 'id' | 'createdAt' | 'updatedAt' | 'parameters' | 'tags' | 'systemPrompt'> &
  Partial<Pick<Agent, 'id' | 'parameters' | 'tags' | 'systemPrompt'>>

export type AgentPatch = Partial<Omit<Agent, 'id' | 'createdAt' | 'updatedAt'>>
