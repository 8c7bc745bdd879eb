import type { Message } from '../data/message'
import type { StreamEvent, ToolCall } from '../stream/events'

/** Streamed tool-call fragments: the same index (or id) merges, arguments concatenate. */
export function mergeToolCalls(current: readonly ToolCall[] | undefined, incoming: readonly ToolCall[]): ToolCall[] {
  const merged = [...(current ?? [])]
  for (const call of incoming) {
    const at = merged.findIndex((c) => (call.index !== undefined && c.index === call.index) || (call.id !== '' && c.id === call.id))
    if (at < 0) {
      merged.push({ ...call, function: { ...call.function } })
      continue
    }
    const prev = merged[at]!
    merged[at] = {
      ...prev,
      id: prev.id || call.id,
      type: prev.type || call.type,
      function: { name: prev.function.name || call.function.name, arguments: prev.function.arguments + call.function.arguments }
    }
  }
  return merged
}

/**
 * A reply as the renderer shows it while it streams: the same runtime events the core writes
 * into the database, applied to a Message. `reasoningDurationMs` is measured here.
 */
export interface LiveMessage extends Message {
  reasoningStartedAt?: number
  reasoningDurationMs?: number
}

export function applyStreamEvent(message: LiveMessage, event: StreamEvent, now = Date.now()): LiveMessage {
  switch (event.type) {
    case 'text': {
      const content = [...message.content]
      const last = content[content.length - 1]
      if (last && last.type === 'text') content[content.length - 1] = { type: 'text', text: last.text + event.data }
      else content.push({ type: 'text', text: event.data })
      const reasoningDurationMs =
        message.reasoningStartedAt !== undefined && message.reasoningDurationMs === undefined ? now - message.reasoningStartedAt : message.reasoningDurationMs
      return { ...message, content, reasoningDurationMs }
    }
    case 'reasoning':
      return {
        ...message,
        reasoningStartedAt: message.reasoningStartedAt ?? now,
        reasoning: { text: (message.reasoning?.text ?? '') + event.data, signature: event.signature ?? message.reasoning?.signature }
      }
    case 'tool_calls':
      return { ...message, toolCalls: mergeToolCalls(message.toolCalls, event.data) }
    case 'usage':
      return { ...message, usage: event.data }
    case 'grounding':
      return { ...message, grounding: event.data }
    case 'speed':
      return { ...message, speed: event.data }
    case 'error':
      return { ...message, error: event.data }
    case 'base64_image':
      // Shown while the reply streams; the finished message holds it as a stored file instead.
      return { ...message, content: [...message.content, { type: 'image_url', imageUrl: { url: `data:${event.data.mimeType};base64,${event.data.image}` } }] }
    default:
      return message
  }
}
