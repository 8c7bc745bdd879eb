import { DEFAULT_AGENT_NAME } from '../../../shared/chat/default-names'
import type { Agent, AgentInput, AgentPatch, ModelParameters } from '../../../shared/data/agent'
import type { StoreDb } from '../database'
import { notFound } from '../errors'
import { newId } from '../ids'
import { fromJson, opt } from '../json-column'
import type { AgentRow } from '../schema'

export const agentFromRow = (row: AgentRow): Agent => ({
  id: row.id,
  name: row.name,
  avatar: opt(row.avatar),
  description: opt(row.description),
  systemPrompt: row.system_prompt,
  providerId: opt(row.provider_id),
  modelId: opt(row.model_id),
  parameters: fromJson<ModelParameters>(row.parameters) ?? {},
  tags: fromJson<string[]>(row.tags) ?? [],
  createdAt: row.created_at,
  updatedAt: row.updated_at
})

export const agentToRow = (agent: Agent): AgentRow => ({
  id: agent.id,
  name: agent.name,
  avatar: agent.avatar ?? null,
  description: agent.description ?? null,
  system_prompt: agent.systemPrompt,
  provider_id: agent.providerId ?? null,
  model_id: agent.modelId ?? null,
  parameters: JSON.stringify(agent.parameters ?? {}),
  tags: JSON.stringify(agent.tags ?? []),
  created_at: agent.createdAt,
  updated_at: agent.updatedAt
})

/**
 * The agent every install starts with, under one id on every install: two devices that sync share
 * one default agent instead of two.
 */
export const DEFAULT_AGENT = { id: 'defaultagent0000', name: DEFAULT_AGENT_NAME, avatar: '💬' } as const

/**
 * The default agent's columns as an install writes them, times aside. Sync stamps what still
 * holds these values as older than any edit (tables.ts, `installed`): a device set up later must
 * not reset what the user changed in it elsewhere.
 */
export function installedDefaultAgent(): Record<string, string | number | null> {
  const { id: _id, created_at: _created, updated_at: _updated, ...columns } = agentToRow(newAgent(DEFAULT_AGENT, 0))
  return columns
}

const newAgent = (input: AgentInput, now: number): Agent => ({
  ...input,
  id: input.id ?? newId(),
  systemPrompt: input.systemPrompt ?? '',
  parameters: input.parameters ?? {},
  tags: input.tags ?? [],
  createdAt: now,
  updatedAt: now
})

export class AgentsRepository {
  constructor(private readonly db: StoreDb) {}

  create(input: AgentInput): Agent {
    const agent = newAgent(input, Date.now())
    this.db.run(this.db.q.insertInto('agents').values(agentToRow(agent)))
    return agent
  }

  get(id: string): Agent | undefined {
    const row = this.db.first(this.db.q.selectFrom('agents').selectAll().where('id', '=', id))
    return row && agentFromRow(row)
  }

  require(id: string): Agent {
    const agent = this.get(id)
    if (!agent) throw notFound('Agent', id)
    return agent
  }

  list(): Agent[] {
    return this.db.all(this.db.q.selectFrom('agents').selectAll().orderBy('updated_at', 'desc').orderBy('id')).map(agentFromRow)
  }

  update(id: string, patch: AgentPatch): Agent {
    return this.db.transaction(() => {
      const next: Agent = { ...this.require(id), ...patch, id, updatedAt: Date.now() }
      const { id: _id, created_at: _created, ...row } = agentToRow(next)
      this.db.run(this.db.q.updateTable('agents').set(row).where('id', '=', id))
      return next
    })
  }

  /** Deletes the agent with its conversations, topics and messages. */
  delete(id: string): boolean {
    return this.db.run(this.db.q.deleteFrom('agents').where('id', '=', id)) > 0
  }
}
