import { z } from 'zod'
import { call } from '../define'
import type { Conversation } from '../../data/conversation'
import type { Message } from '../../data/message'
import { hasUserContent, userTurnFields } from './chat'
import { COMPETITION_MAX_MODELS, COMPETITION_MIN_MODELS } from '../../chat/competition'

/** One competing reply as started: attach to `streamId` (as a `chat.send` stream) to follow it. */
export interface CompetitionReply {
  streamId: string
  providerId: string
  modelId: string
}

export interface CompetitionStarted {
  conversation: Conversation
  userMessage: Message
  replies: CompetitionReply[]
}

const id = z.string().min(1).max(200)
const model = z.object({ providerId: id, modelId: id }).strict()

const startSchema = z
  .object({
    ...userTurnFields,
    /** The models that answer side by side (any providers, local included). */
    models: z.array(model).min(COMPETITION_MIN_MODELS).max(COMPETITION_MAX_MODELS)
  })
  .strict()
  .refine(...hasUserContent)

export type CompetitionStartInput = z.output<typeof startSchema>

/**
 * Chat Competition. Each reply is its own stream in the core's hub (listed by
 * `tasks.active({ kind: 'chat' })`, stopped by `chat.stop`), so these are calls that return the streams' ids.
 */
export const competitionProcedures = {
  /** Sends once: one user message, one reply per model, streaming side by side. */
  'competition.start': call<CompetitionStarted>()(startSchema),
  /** Regenerates one column (`messageId`) or every column (`userMessageId`). */
  'competition.regenerate': call<CompetitionStarted>()(z.object({ messageId: id.optional(), userMessageId: id.optional() }).strict()),
  /** The reply the conversation continues from; the others stay as branches of the turn. */
  'competition.choose': call<{ userMessage: Message; conversation: Conversation }>()(z.object({ messageId: id }).strict())
} as const
