import type { ModelParameters } from '../../../shared/data/agent'
import type { Conversation, ConversationInput, ConversationPatch, Topic } from '../../../shared/data/conversation'
import type { StoreDb } from '../database'
import { notFound } from '../errors'
import { newId } from '../ids'
import { fromJson, opt, toJson } from '../json-column'
import type { ConversationRow, TopicRow } from '../schema'

export const conversationFromRow = (row: ConversationRow): Conversation => ({
  id: row.id,
  agentId: row.agent_id,
  title: row.title,
  providerId: opt(row.provider_id),
  modelId: opt(row.model_id),
  parameters: fromJson<ModelParameters>(row.parameters),
  pinned: row.pinned === 1,
  createdAt: row.created_at,
  updatedAt: row.updated_at
})

export const conversationToRow = (c: Conversation): ConversationRow => ({
  id: c.id,
  agent_id: c.agentId,
  title: c.title,
  provider_id: c.providerId ?? null,
  model_id: c.modelId ?? null,
  parameters: toJson(c.parameters),
  pinned: c.pinned ? 1 : 0,
  created_at: c.createdAt,
  updated_at: c.updatedAt
})

export const topicFromRow = (row: TopicRow): Topic => ({
  id: row.id,
  conversationId: row.conversation_id,
  title: row.title,
  createdAt: row.created_at,
  updatedAt: row.updated_at
})

export class ConversationsRepository {
  constructor(private readonly db: StoreDb) {}

  create(input: ConversationInput): Conversation {
    const now = Date.now()
    const conversation: Conversation = { title: '', pinned: false, ...input, id: input.id ?? newId(), createdAt: now, updatedAt: now }
    if (!this.db.first(this.db.q.selectFrom('agents').select('id').where('id', '=', input.agentId))) throw notFound('Agent', input.agentId)
    this.db.run(this.db.q.insertInto('conversations').values(conversationToRow(conversation)))
    return conversation
  }

  get(id: string): Conversation | undefined {
    const row = this.db.first(this.db.q.selectFrom('conversations').selectAll().where('id', '=', id))
    return row && conversationFromRow(row)
  }

  require(id: string): Conversation {
    const conversation = this.get(id)
    if (!conversation) throw notFound('Conversation', id)
    return conversation
  }

  /** Pinned first, then most recently active. */
  list(filter: { agentId?: string } = {}): Conversation[] {
    let query = this.db.q.selectFrom('conversations').selectAll()
    if (filter.agentId) query = query.where('agent_id', '=', filter.agentId)
    return this.db.all(query.orderBy('pinned', 'desc').orderBy('updated_at', 'desc').orderBy('id')).map(conversationFromRow)
  }

  update(id: string, patch: ConversationPatch): Conversation {
    return this.db.transaction(() => {
      const current = this.require(id)
      const next: Conversation = { ...current, ...patch, id, updatedAt: Date.now() }
      const { id: _id, created_at: _created, ...row } = conversationToRow(next)
      this.db.run(this.db.q.updateTable('conversations').set(row).where('id', '=', id))
      // Messages carry their agent for scoped search; moving a conversation moves them too.
      if (next.agentId !== current.agentId) {
        this.db.run(this.db.q.updateTable('messages').set({ agent_id: next.agentId }).where('conversation_id', '=', id))
      }
      return next
    })
  }

  /** Marks activity so the conversation sorts to the top. */
  touch(id: string, at = Date.now()): void {
    this.db.run(this.db.q.updateTable('conversations').set({ updated_at: at }).where('id', '=', id))
  }

  delete(id: string): boolean {
    return this.db.run(this.db.q.deleteFrom('conversations').where('id', '=', id)) > 0
  }

  createTopic(conversationId: string, title = ''): Topic {
    this.require(conversationId)
    const now = Date.now()
    const topic: Topic = { id: newId(), conversationId, title, createdAt: now, updatedAt: now }
    this.db.run(
      this.db.q.insertInto('topics').values({ id: topic.id, conversation_id: conversationId, title, created_at: now, updated_at: now })
    )
    return topic
  }

  listTopics(conversationId: string): Topic[] {
    return this.db
      .all(this.db.q.selectFrom('topics').selectAll().where('conversation_id', '=', conversationId).orderBy('created_at').orderBy('id'))
      .map(topicFromRow)
  }

  renameTopic(id: string, title: string): Topic {
    const changed = this.db.run(this.db.q.updateTable('topics').set({ title, updated_at: Date.now() }).where('id', '=', id))
    if (changed === 0) throw notFound('Topic', id)
    return topicFromRow(this.db.first(this.db.q.selectFrom('topics').selectAll().where('id', '=', id))!)
  }

  /** Deletes the topic; its messages stay in the conversation (topic cleared). */
  deleteTopic(id: string): boolean {
    return this.db.run(this.db.q.deleteFrom('topics').where('id', '=', id)) > 0
  }
}
