import type { ModelParameters } from './agent'

/** A conversation belongs to one agent; its topics split it into threads. */
export interface Conversation {
  id: string
  agentId: string
  title: string
  /** Overrides of the agent's model for this conversation. */
  providerId?: string
  modelId?: string
  parameters?: ModelParameters
  pinned: boolean
  createdAt: number
  updatedAt: number
}

export type ConversationInput = Pick<Conversation, 'agentId'> & Partial<Omit<Conversation, 'agentId' | 'createdAt' | 'updatedAt'>>
export type ConversationPatch = Partial<Pick<Conversation, 'title' | 'providerId' | 'modelId' | 'parameters' | 'pinned' | 'agentId'>>

export interface Topic {
  id: string
  conversationId: string
  title: string
  createdAt: number
  updatedAt: number
}
