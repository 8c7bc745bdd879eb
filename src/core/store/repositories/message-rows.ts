import type { AppError } from '../../../shared/errors/app-error'
import type { CostBreakdown } from '../../../shared/data/cost'
import type { MessageMeta } from '../../../shared/chat/message-meta'
import { messageText, type ContentPart, type Message, type MessageRole, type MessageStatus, type ToolResult } from '../../../shared/data/message'
import type { Grounding, Speed, ToolCall } from '../../../shared/stream/events'
import type { UsageRecord } from '../../../shared/stream/usage'
import { fromJson, opt, toJson } from '../json-column'
import type { MessageRow, NewMessageRow } from '../schema'

/** The error shown on a message whose stored row is partly unreadable. Never quotes its content. */
export const DAMAGED_MESSAGE_ERROR: AppError = {
  errorType: 'MessageDamaged',
  message: 'Part of this message was damaged on disk and could not be read. What could be recovered is shown; the rest of the conversation is not affected.'
}

/**
 * A row as a message. A JSON column that no longer parses (a flipped byte on disk passes
 * quick_check) does not fail the read: the message comes back with `damaged` naming the
 * unreadable parts, its text recovered from the plain-text copy kept for search, and an
 * error that says so without quoting what the user wrote.
 */
export const messageFromRow = (row: MessageRow): Message => {
  const damaged: string[] = []
  const read = <T>(column: string, text: string | null): T | undefined => {
    try {
      return fromJson<T>(text)
    } catch {
      damaged.push(column)
      return undefined
    }
  }
  let content = read<ContentPart[]>('content', row.content)
  if (content !== undefined && !Array.isArray(content)) {
    damaged.push('content')
    content = undefined
  }
  const message: Message = {
    id: row.id,
    conversationId: row.conversation_id,
    topicId: opt(row.topic_id),
    parentId: opt(row.parent_id),
    role: row.role as MessageRole,
    content: content ?? (damaged.includes('content') && row.text ? [{ type: 'text', text: row.text }] : []),
    reasoning: read<Message['reasoning']>('reasoning', row.reasoning),
    toolCalls: read<ToolCall[]>('toolCalls', row.tool_calls),
    toolResults: read<ToolResult[]>('toolResults', row.tool_results),
    files: read<string[]>('files', row.files),
    grounding: read<Grounding>('grounding', row.grounding),
    providerId: opt(row.provider_id),
    modelId: opt(row.model_id),
    usage: read<UsageRecord>('usage', row.usage),
    cost: read<CostBreakdown>('cost', row.cost),
    speed: read<Speed>('speed', row.speed),
    error: read<AppError>('error', row.error),
    meta: read<MessageMeta>('meta', row.meta),
    status: row.status as MessageStatus,
    createdAt: row.created_at,
    updatedAt: row.updated_at
  }
  if (damaged.length > 0) {
    message.damaged = damaged
    message.error = DAMAGED_MESSAGE_ERROR
  }
  return message
}

/** SQL that finds rows with a JSON column that no longer parses (start-up check, export). */
export const DAMAGED_MESSAGES_SQL = `SELECT id FROM messages WHERE NOT json_valid(content)
  OR (reasoning IS NOT NULL AND NOT json_valid(reasoning)) OR (tool_calls IS NOT NULL AND NOT json_valid(tool_calls))
  OR (tool_results IS NOT NULL AND NOT json_valid(tool_results)) OR (files IS NOT NULL AND NOT json_valid(files))
  OR (grounding IS NOT NULL AND NOT json_valid(grounding)) OR (usage IS NOT NULL AND NOT json_valid(usage))
  OR (cost IS NOT NULL AND NOT json_valid(cost)) OR (speed IS NOT NULL AND NOT json_valid(speed))
  OR (error IS NOT NULL AND NOT json_valid(error)) OR (meta IS NOT NULL AND NOT json_valid(meta))`

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
