import type { CostBreakdown } from '../../../shared/data/cost'
import { messageText, type Message } from '../../../shared/data/message'
import type { UsageRecord } from '../../../shared/stream/usage'
import { joinsAsOneText } from '../../../shared/chat/continuation'

/**
 * A reply and its continuations (chat.continue), read as one text: the first part is the reply
 * (branches, regenerate, delete go to it), the last is where it goes on (its status, error,
 * Continue). A plain-text part only: a tool step is its own message.
 */
export interface JoinedReply<M extends Message> {
  /** What is drawn: the parts' texts joined with nothing between them. */
  view: M
  parts: M[]
}


function sumUsage(parts: readonly Message[]): UsageRecord | undefined {
  const with_ = parts.filter((p) => p.usage)
  if (with_.length === 0) return undefined
  const out: Record<string, number> = {}
  for (const p of with_) for (const [k, v] of Object.entries(p.usage!)) if (typeof v === 'number') out[k] = (out[k] ?? 0) + v
  return out as UsageRecord
}

function sumCost(parts: readonly Message[]): CostBreakdown | undefined {
  const costs = parts.map((p) => p.cost).filter((c): c is CostBreakdown => Boolean(c))
  if (costs.length === 0) return undefined
  if (costs.length === 1) return costs[0]
  // Different currencies do not add up: the last part's cost alone rather than a wrong sum.
  if (costs.some((c) => c.currency !== costs[0]!.currency)) return costs[costs.length - 1]
  return { currency: costs[0]!.currency, total: costs.reduce((n, c) => n + c.total, 0) }
}

/** One view of a reply followed by its continuations. */
export function joinParts<M extends Message>(parts: readonly M[]): M {
  const first = parts[0]!
  if (parts.length === 1) return first
  const last = parts[parts.length - 1]!
  const text = parts.map((p) => messageText(p.content)).join('')
  const others = parts.flatMap((p) => p.content.filter((c) => c.type !== 'text'))
  const meta = { ...first.meta, ...last.meta }
  if (!last.meta?.interruptedBy) delete meta.interruptedBy
  // A translation is of the whole reply, kept on its first part (chat.translate joins the parts).
  if (first.meta?.translations) meta.translations = first.meta.translations
  else delete meta.translations
  const usage = sumUsage(parts)
  const cost = sumCost(parts)
  const reasoning = parts.find((p) => p.reasoning?.text)?.reasoning
  const grounding = parts.find((p) => p.grounding)?.grounding
  const view: M = {
    ...first,
    content: [{ type: 'text', text }, ...others],
    status: last.status,
    updatedAt: last.updatedAt,
    meta
  }
  for (const key of ['error', 'speed', 'usage', 'cost', 'reasoning', 'grounding'] as const) delete view[key]
  if (last.error) view.error = last.error
  if (last.speed) view.speed = last.speed
  if (usage) view.usage = usage
  if (cost) view.cost = cost
  if (reasoning) view.reasoning = reasoning
  if (grounding) view.grounding = grounding
  return view
}

/**
 * Groups a run of messages (a conversation's shown path, or a competition column's chain):
 * each interrupted plain reply with the continuations that follow it becomes one joined reply;
 * every other message stands alone.
 */
export function joinContinuations<M extends Message>(messages: readonly M[]): JoinedReply<M>[] {
  const out: { parts: M[] }[] = []
  messages.forEach((message, i) => {
    const prev = messages[i - 1]
    const group = out[out.length - 1]
    if (group && joinsAsOneText(message, prev)) group.parts.push(message)
    else out.push({ parts: [message] })
  })
  return out.map(({ parts }) => ({ view: joinParts(parts), parts }))
}
