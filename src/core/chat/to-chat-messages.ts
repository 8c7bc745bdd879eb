import { messageText, type ContentPart, type Message } from '../../shared/data/message'
import { joinsAsOneText } from '../../shared/chat/continuation'
import type { ChatMessage } from '../runtime/types'
import { assistantTurn, toolTurnMessages } from '../tools/tool-loop'

/** How a history summary is sent: a system turn after the agent's prompt, said to be a summary. */
export const summaryPreamble = 'Summary of the earlier part of this conversation (the messages themselves are not repeated):'

/**
 * Stored messages → the request's messages: the agent's prompt, the summary that replaces the
 * older messages (if any), then user and assistant turns (attached files first, signed thinking
 * sent back verbatim so the provider can continue its reasoning). A stopped reply and its
 * continuation (chat.continue) are one assistant turn, their texts joined as the reader sees them:
 * "resp" + "onse" is sent as "response", not as two turns.
 */
export function toChatMessages(
  systemPrompt: string,
  history: readonly Message[],
  options: { summary?: string; fileParts?: (m: Message) => { type: 'text'; text: string }[]; vision?: boolean } = {}
): ChatMessage[] {
  const out: ChatMessage[] = []
  if (systemPrompt.trim()) out.push({ role: 'system', content: systemPrompt })
  if (options.summary) out.push({ role: 'system', content: `${summaryPreamble}\n${options.summary}` })
  let previous: Message | undefined
  for (const m of history) {
    if (m.role !== 'user' && m.role !== 'assistant') continue
    const before = previous
    previous = m
    const joined = before && continues(m, before) ? out[out.length - 1] : undefined
    if (joined?.role === 'assistant' && typeof joined.content === 'string' && !joined.reasoning) {
      joined.content += messageText(m.content)
      continue
    }
    const only = m.content.length === 1 ? m.content[0]! : undefined
    // The common turn (one text part, no files, no tools): no intermediate arrays.
    if (only?.type === 'text' && !m.files?.length && !m.toolCalls?.length && !m.reasoning?.signature && m.status !== 'error') {
      out.push({ role: m.role, content: only.text })
      continue
    }
    if (m.role === 'assistant' && m.status === 'error' && !messageText(m.content)) continue
    const images = m.content.filter((p): p is Extract<ContentPart, { type: 'image_url' }> => p.type === 'image_url')
    const text = messageText(m.content)
    const files = m.role === 'user' && m.files?.length && options.fileParts ? options.fileParts(m) : []
    if ((images.length > 0 || files.length > 0) && m.role === 'user') {
      out.push({
        role: 'user',
        content: [...files, ...(text ? [{ type: 'text' as const, text }] : []), ...images.map((p) => ({ type: 'image_url' as const, image_url: { url: p.imageUrl.url } }))]
      })
    } else if (m.role === 'assistant' && m.toolCalls?.length && m.status === 'complete') {
      // A step of the tool loop: the calls, then one tool message per call (a call
      // that never ran is answered as such, since providers refuse calls without results).
      out.push(assistantTurn(m), ...toolTurnMessages(m.toolCalls, m.toolResults, { vision: options.vision === true }))
    } else {
      const msg: ChatMessage = { role: m.role, content: text }
      if (m.role === 'assistant' && m.reasoning?.signature) msg.reasoning = { content: m.reasoning.text, signature: m.reasoning.signature }
      out.push(msg)
    }
  }
  return out
}

/** `m` goes on from the stopped plain reply `partial` (chat.continue) and can be sent joined to it: plain text, no signed reasoning. */
const continues = (m: Message, partial: Message): boolean => joinsAsOneText(m, partial) && !m.reasoning?.signature && m.content.every((p) => p.type === 'text')
