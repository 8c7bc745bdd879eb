import type { Message } from '../data/message'
import { countTokens, IMAGE_TOKENS } from '../tokens/count-tokens'

/**
 * Which part of a conversation goes with the next request ("Long conversations"):
 * the newest summary replaces everything up to its message, the agent's history count keeps the
 * last N, and when the rest passes the limit the older part is marked for the scene Summary
 * History Messages. Shared so the composer's token counter shows exactly what will be sent.
 */

export interface HistoryOptions {
  /** Tokens of what is always sent (system prompt, extra instruction). */
  fixedTokens?: number
  /** Earlier messages to send besides the last one; undefined or 0 sends all. */
  historyCount?: number
  /** The model's context window; without it nothing is ever over. */
  window?: number
  /** Room kept for the reply. */
  reserve?: number
  autoCompress?: boolean
  /** Compress once the history passes this fraction of the window (default 1). */
  compressAt?: number
  /** Tokens of one message; the default counts its text and images. */
  tokensOf?: (message: Message) => number
}

export interface HistoryPlan {
  /** What is sent, oldest first (after the summary, if one is used). */
  messages: Message[]
  /** The summary sent in place of the earlier messages. */
  summary?: { messageId: string; text: string; covers: number }
  /** Estimate of everything sent: fixed part, summary and messages. */
  tokens: number
  /** The limit the history is held to (window × compressAt − reserve); Infinity without a window. */
  limit: number
  /** Set when automatic compression should summarise `older` and send `keep`. */
  compress?: { older: Message[]; keep: Message[] }
  /** Even after what could be done, more than the model reads. */
  over: boolean
}

const SUMMARY_OVERHEAD = 16

/** The branch from the root to `leafId` (inclusive), following parent ids; oldest first. */
export function pathTo(all: readonly Message[], leafId: string | undefined): Message[] {
  if (!leafId) return []
  const byId = new Map<string, Message>()
  for (const m of all) byId.set(m.id, m)
  const path: Message[] = []
  let cursor = byId.get(leafId)
  // Bounded: a corrupted parent cycle must not hang a reply.
  while (cursor && path.length < all.length) {
    path.push(cursor)
    cursor = cursor.parentId ? byId.get(cursor.parentId) : undefined
  }
  return path.reverse()
}

/** The default message count: text, images at a flat rate, 4 for the role framing. */
export function messageTokens(message: Message): number {
  let tokens = 4
  for (const part of message.content) tokens += part.type === 'text' ? countTokens(part.text) : IMAGE_TOKENS
  return tokens
}

export const summaryTokens = (text: string): number => countTokens(text) + SUMMARY_OVERHEAD

export function planHistory(path: readonly Message[], options: HistoryOptions = {}): HistoryPlan {
  const tokensOf = options.tokensOf ?? messageTokens
  const last = path.length - 1
  let start = 0
  let summary: HistoryPlan['summary']
  for (let i = last - 1; i >= 0; i--) {
    const s = path[i]!.meta?.historySummary
    if (s) {
      start = i + 1
      summary = { messageId: path[i]!.id, text: s.text, covers: i + 1 }
      break
    }
  }
  const count = options.historyCount && options.historyCount > 0 ? Math.floor(options.historyCount) : 0
  if (count > 0 && last - count > start) {
    // The count reaches back less far than the summary: the summary is older than what is sent.
    start = last - count
    summary = undefined
  }
  const fixed = (options.fixedTokens ?? 0) + (summary ? summaryTokens(summary.text) : 0)
  let tokens = fixed
  for (let i = start; i <= last; i++) tokens += tokensOf(path[i]!)
  const window = options.window && options.window > 0 ? options.window : undefined
  const reserve = options.reserve ?? 0
  const limit = window ? Math.max(1, Math.floor(window * Math.min(1, Math.max(0.1, options.compressAt ?? 1))) - reserve) : Infinity
  const messages = path.slice(Math.max(0, start), last + 1)
  const plan: HistoryPlan = { messages, tokens, limit, over: window !== undefined && tokens > window - reserve, ...(summary ? { summary } : {}) }
  if (tokens <= limit || !options.autoCompress || messages.length < 2) return plan

  // Keep the newest messages within half the limit (at least the last one); summarise the rest.
  let kept = options.fixedTokens ?? 0
  let split = messages.length - 1
  kept += tokensOf(messages[split]!)
  while (split > 0 && kept + tokensOf(messages[split - 1]!) <= limit / 2) {
    split--
    kept += tokensOf(messages[split]!)
  }
  if (split === 0) return plan
  plan.compress = { older: messages.slice(0, split), keep: messages.slice(split) }
  return plan
}
