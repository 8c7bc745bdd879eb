import type { AppError } from '../../../shared/errors/app-error'
import type { CostBreakdown } from '../../../shared/data/cost'
import type { MessageMeta } from '../../../shared/chat/message-meta'
import { messageText, type ContentPart, type Message, type MessageRole, type MessageStatus, type ToolResult } from '../../../shared/data/message'
import type { Grounding, Speed, ToolCall } from '../../../shared/stream/events'
import type { UsageRecord } from '../../../shared/stream/usage'
import { fromJson, opt, toJson } from '../json-column'
import type { MessageRow, NewMessageRow } from '../schema'

export const messageFromRow = (row: MessageRow): Message => ({
  id: row.id,
  conversationId: row.conversation_id,
  topicId: opt(row.topic_id),
  parentId: opt(row.parent_id),
  role: row.role as MessageRole,
  content: fromJson<ContentPart[]>(row.content) ?? [],
  reasoning: fromJson<Message['reasoning']>(row.reasoning),
  toolCalls: fromJson<ToolCall[]>(row.tool_calls),
  toolResults: fromJson<ToolResult[]>(row.tool_results),
  files: fromJson<string[]>(row.files),
  grounding: fromJson<Grounding>(row.grounding),
  providerId: opt(row.provider_id),
  modelId: opt(row.model_id),
  usage: fromJson<UsageRecord>(row.usage),
  cost: fromJson<CostBreakdown>(row.cost),
  speed: fromJson<Speed>(row.speed),
  error: fromJson<AppError>(row.error),
  meta: fromJson<MessageMeta>(row.meta),
  status: row.status as MessageStatus,
  createdAt: row.created_at,
  updatedAt: row.updated_at
})

/** Every column a message writes, except the generated `seq`. */
export const messageToRow = (m: Message, agentId: string): Omit<NewMessageRow, 'seq'> => ({
  id: m.id,
  conversation_id: m.conversationId,
  agent_id: agentId,
  topic_id: m.topicId ?? null,
  parent_id: m.parentId ?? null,
  role: m.role,
  content: JSON.stringify(m.content),
  text: messageText(m.content),
  reasoning: toJson(m.reasoning),
  tool_calls: toJson(m.toolCalls),
  tool_results: toJson(m.toolResults),
  files: toJson(m.files),
  grounding: toJson(m.grounding),
  provider_id: m.providerId ?? null,
  model_id: m.modelId ?? null,
  usage: toJson(m.usage),
  cost: toJson(m.cost),
  speed: toJson(m.speed),
  error: toJson(m.error),
  meta: toJson(m.meta),
  status: m.status,
  created_at: m.createdAt,
  updated_at: m.updatedAt
})
