import type { Message } from '../data/message'
import type { CompetitionMeta, CompetitionModel } from './message-meta'

export type { CompetitionMeta, CompetitionModel }

/**
 * Chat Competition: one user message answered by 2–4 models at once. The replies are
 * ordinary sibling branches of that turn; the user message records which models were asked and,
 * once the user picked one, which reply the conversation goes on from.
 */

/** The mode the usage log records for each competing reply (product.md §8, "Modes"). */
export const COMPETITION_MODE = 'Chat Competition'
export const COMPETITION_MIN_MODELS = 2
export const COMPETITION_MAX_MODELS = 4

export const sameModel = (a: CompetitionModel, b: { providerId?: string; modelId?: string }): boolean => a.providerId === b.providerId && a.modelId === b.modelId

export const modelKey = (m: CompetitionModel): string => `${m.providerId}/${m.modelId}`

export interface CompetitionColumn {
  model: CompetitionModel
  /** Every reply of this model to the turn, oldest first (regenerating a column adds one). */
  replies: Message[]
}

/**
 * The columns of a competition: one per model asked, in the order asked, each with that model's
 * replies to `userMessage`. A reply of a model not asked (an ordinary regenerate with another
 * model) gets its own column at the end, so no branch is ever hidden.
 */
export function competitionColumns<M extends Message>(all: readonly M[], userMessage: Message, meta: CompetitionMeta): { model: CompetitionModel; replies: M[] }[] {
  const replies = all.filter((m) => m.parentId === userMessage.id && m.role === 'assistant')
  const columns = meta.models.map((model) => ({ model, replies: replies.filter((r) => sameModel(model, r)) }))
  for (const reply of replies) {
    if (columns.some((c) => c.replies.includes(reply))) continue
    const model = { providerId: reply.providerId ?? '', modelId: reply.modelId ?? '' }
    const column = columns.find((c) => sameModel(c.model, model))
    if (column) column.replies.push(reply)
    else columns.push({ model, replies: [reply] })
  }
  return columns
}
