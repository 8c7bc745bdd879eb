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
