import type { Agent } from './agent'

/**
 * One agent as a file (export/import a single agent). Only what defines the agent — no
 * id (an import is always a new agent, so importing twice gives two), no conversations, no keys.
 */
export const AGENT_FILE_FORMAT = 'switchboard-agent'
export const AGENT_FILE_VERSION = 1

/** What the file holds of an agent (the limits are `data.agents.create`'s, checked in agent-file-schema.ts). */
export type AgentFileFields = Pick<Agent, 'name' | 'avatar' | 'description' | 'systemPrompt' | 'providerId' | 'modelId' | 'parameters' | 'tags'>

export interface AgentFile {
  format: typeof AGENT_FILE_FORMAT
  version: number
  exportedAt: number
  agent: AgentFileFields
}

export function agentToFile(agent: Agent, now = Date.now()): AgentFile {
  const fields: AgentFileFields = { name: agent.name, systemPrompt: agent.systemPrompt, parameters: agent.parameters, tags: agent.tags }
  if (agent.avatar !== undefined) fields.avatar = agent.avatar
  if (agent.description !== undefined) fields.description = agent.description
  if (agent.providerId !== undefined) fields.providerId = agent.providerId
  if (agent.modelId !== undefined) fields.modelId = agent.modelId
  return { format: AGENT_FILE_FORMAT, version: AGENT_FILE_VERSION, exportedAt: now, agent: fields }
}

/** A file name people can read, from the agent's name (no path characters). */
export const agentFileName = (name: string) => `${name.replace(/[^\p{L}\p{N} _-]+/gu, '').trim().slice(0, 60) || 'agent'}.switchboard-agent.json`

