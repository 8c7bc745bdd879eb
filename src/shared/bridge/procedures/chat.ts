import { z } from 'zod'
import { call, stream } from '../define'
import type { Conversation } from '../../data/conversation'
import type { CostBreakdown } from '../../data/cost'
import type { Message } from '../../data/message'
import type { Agent } from '../../data/agent'
import type { StreamEvent } from '../../stream/events'
import type { ChosenOptions } from '../../chat/message-meta'
import { modelParametersSchema } from '../../data/export-file'
import type { ToolStreamEvent } from '../../tools/types'

/** The first event of every reply stream: what was created, so the UI can show it at once. */
export type ChatStreamEvent =
  | { type: 'reply'; data: { conversation: Conversation; userMessage?: Message; assistantMessage: Message } }
  | { type: 'title'; data: { conversationId: string; title: string } }
  | { type: 'cost'; data: CostBreakdown }
  /** The options the reply was asked with (shown on the message). */
  | { type: 'options'; data: ChosenOptions }
  /** Older messages were summarised; `message` now carries the summary (meta.historySummary). */
  | { type: 'summary'; data: { conversationId: string; message: Message } }
  | StreamEvent
  | ToolStreamEvent

const id = z.string().min(1).max(200)
const image = z.object({ dataUrl: z.string().regex(/^data:image\/(png|jpeg|webp|gif);base64,/, 'must be a data URL of a PNG, JPEG, WebP or GIF image').max(30_000_000) })

/** What a user's turn carries, for every procedure that starts one (chat.send, competition.start). */
export const userTurnFields = {
  conversationId: id.optional(),
  agentId: id.optional(),
  /** The message this one follows; defaults to the conversation's newest message. */
  parentId: id.optional(),
  text: z.string().max(2_000_000),
  images: z.array(image).max(16).optional(),
  /** Uploaded files (files.upload) whose extracted text goes with the message. */
  files: z.array(id).max(32).optional(),
  /** The composer's controls (search, thinking…) for a conversation this message creates. */
  parameters: modelParametersSchema.optional(),
  /** Knowledge bases attached to a conversation this message creates (chosen before it existed). */
  knowledgeBaseIds: z.array(id).max(64).optional()
}

/** A turn needs something to say. */
type TurnContent = { text: string; images?: unknown[] | undefined; files?: unknown[] | undefined }
export const hasUserContent: [(v: TurnContent) => boolean, { message: string; path: PropertyKey[] }] = [
  (v) => v.text.trim().length > 0 || (v.images?.length ?? 0) > 0 || (v.files?.length ?? 0) > 0,
  { message: 'a message needs text, an image or a file', path: ['text'] }
]

export const chatProcedures = {
  /** Sends a user message (creating the conversation if needed) and streams the reply. */
  'chat.send': stream<ChatStreamEvent, Message>()(
    z
      .object({
        ...userTurnFields,
        providerId: id.optional(),
        modelId: id.optional(),
        /** The composer's tools choice for this message only (all off, or some servers off); the agent is unchanged. */
        tools: z.object({ off: z.boolean().optional(), skipServers: z.array(id).max(200).optional() }).strict().optional()
      })
      .strict()
      .refine(...hasUserContent)
  ),
  /** A new reply to the same user message; the earlier one stays as a branch. */
  'chat.regenerate': stream<ChatStreamEvent, Message>()(
    z.object({ messageId: id, deleteOld: z.boolean().optional(), providerId: id.optional(), modelId: id.optional() }).strict()
  ),
  /** A user message edited: a new branch from the same parent, and a reply to it. */
  'chat.editAndResend': stream<ChatStreamEvent, Message>()(z.object({ messageId: id, text: z.string().min(1).max(2_000_000) }).strict()),
  /** Continue an interrupted reply from its partial text. */
  'chat.continue': stream<ChatStreamEvent, Message>()(z.object({ messageId: id }).strict()),
  /** Stop a reply (Esc). */
  'chat.stop': call<boolean>()(z.object({ messageId: id }).strict()),
  /** Agents with their conversations, newest first, pinned on top (the sidebar). */
  'chat.sidebar': call<{ agents: Agent[]; conversations: Conversation[]; defaultAgentId: string }>()(z.object({}).strict()),
  /** Every message of a conversation (all branches), oldest first. */
  'chat.messages': call<Message[]>()(z.object({ conversationId: id }).strict()),
  /** Deletes a message; what followed it is re-attached to its parent, so no later turn is lost. */
  'chat.deleteMessage': call<number>()(z.object({ messageId: id }).strict()),
  // Scenes.
  /** Scene Summary Topic Title, its own cancellable task after a reply (a no-op once titled). */
  'chat.title': stream<ChatStreamEvent, string | undefined>()(z.object({ conversationId: id }).strict()),
  /** Scene Translator (source from Language Detect); the result is kept under the message. */
  'chat.translate': call<Message>()(z.object({ messageId: id, language: z.string().min(2).max(40) }).strict()),
  /** Drops a history summary, so the next reply summarises again (or sends everything). */
  'chat.forgetSummary': call<Message>()(z.object({ messageId: id }).strict()),
  /** Scenes Summary Agent Title / Description / Tags from a system prompt (agent settings). */
  'chat.agentMeta': call<{ name: string; description: string; tags: string[] }>()(
    z.object({ systemPrompt: z.string().min(1).max(200_000), providerId: id.optional(), modelId: id.optional() }).strict()
  )
} as const
