import type { AppError } from '../errors/app-error'
import type { MessageMeta } from '../chat/message-meta'
import type { Grounding, RetryNotice, Speed, ToolCall } from '../stream/events'
import type { UsageRecord } from '../stream/usage'
import type { CostBreakdown } from './cost'

export type MessageRole = 'system' | 'user' | 'assistant' | 'tool' | 'function'

/**
 * `streaming` while a reply is being written (flushed about once a second);
 * a crash leaves it to be turned into `interrupted` at the next start-up.
 */
export type MessageStatus = 'streaming' | 'complete' | 'interrupted' | 'error'

/** Content parts as in product.md §3 (text or image), plus images we keep as files. */
export type ContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; imageUrl: { url: string; detail?: 'auto' | 'low' | 'high' } }
  | { type: 'image_file'; fileId: string; mimeType: string; width?: number; height?: number }

/** The result of one tool call, kept with the assistant message that asked for it. */
export interface ToolResult {
  toolCallId: string
  content: string
  isError?: boolean
  /** Tools: which server and tool ran, what the user decided, the structured result. */
  serverId?: string
  tool?: string
  /**
   * `denied` by the user or by a "never" setting; `stopped` when the user stopped the reply while
   * it ran (not a failure); `error` carries the plugin error type.
   */
  outcome?: 'ok' | 'error' | 'denied' | 'stopped'
  errorType?: string
  parts?: ToolResultPart[]
  durationMs?: number
}

export interface Message {
  id: string
  conversationId: string
  topicId?: string
  /** The message this one answers or branches from; siblings with one parent are branches. */
  parentId?: string
  role: MessageRole
  content: ContentPart[]
  /** `durationMs`: how long the model reasoned before it answered (kept, so a reload still says it). */
  reasoning?: { text: string; signature?: string; durationMs?: number }
  toolCalls?: ToolCall[]
  toolResults?: ToolResult[]
  /** Ids of FileRecords attached to the message. */
  files?: string[]
  grounding?: Grounding
  providerId?: string
  modelId?: string
  usage?: UsageRecord
  cost?: CostBreakdown
  speed?: Speed
  error?: AppError
  /**
   * The retry the runtime is waiting on before the first byte: live only — no column
   * holds it, and the next content, error or stop clears it.
   */
  retrying?: RetryNotice
  /** Chosen options, history summary, translations. */
  meta?: MessageMeta
  status: MessageStatus
  createdAt: number
  updatedAt: number
  /**
   * Set when part of the stored row could not be read (damage on disk): the names of the
   * unreadable parts. What could be recovered is shown; the rest of the conversation is not affected.
   */
  damaged?: string[]
}

export type MessageInput = Pick<Message, 'conversationId' | 'role'> &
  Partial<Omit<Message, 'conversationId' | 'role' | 'createdAt' | 'updatedAt'>> & { createdAt?: number }

export type MessagePatch = Partial<
  Pick<Message, 'content' | 'reasoning' | 'toolCalls' | 'toolResults' | 'files' | 'grounding' | 'usage' | 'cost' | 'speed' | 'error' | 'status' | 'topicId' | 'meta'>
>

/** One page of a conversation, oldest first; `hasMore` says whether older messages exist. */
export interface MessagePage {
  messages: Message[]
  hasMore: boolean
}

/** The plain text of a message: its text parts joined (what search indexes). */
export const messageText = (content: readonly ContentPart[]): string =>
  content
    .filter((part): part is Extract<ContentPart, { type: 'text' }> => part.type === 'text')
    .map((part) => part.text)
    .join('\n')

/** MCP tool results as we keep them: text and JSON are text; images as data; resources by uri. */
export type ToolResultPart =
  | { type: 'text'; text: string }
  | { type: 'image'; mimeType: string; data: string }
  | { type: 'resource'; uri: string; mimeType?: string; text?: string }
