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

export interface ApplyEventOptions {
  /**
   * Whether a streamed image becomes an inline data-URL part. The renderer shows it at once;
   * the core keeps a reply's images as stored files, added when the reply finishes, so a
   * streaming row never holds megabytes of base64.
   */
  inlineImages: boolean
}

/**
 * A message without its pending retry notice. Set to undefined rather than left out: the
 * store's writer merges what this returns into its copy.
 */
function settled<M extends Message>(message: M): M {
  return message.retrying === undefined ? message : { ...message, retrying: undefined }
}

/**
 * The one place a runtime event changes a message: the store's StreamingWriter and the
 * renderer's live reply both call this. Returns the message unchanged (the same object) when
 * the event leaves it as it is, and undefined for events a message does not hold (stop,
 * cost, and images unless `inlineImages`).
 *
 * A `retry` is held as `retrying` ("Rate limited, retrying in 4 s… (2/3)" on the
 * message) until the next content, error or stop; no column stores it, so it is never saved.
 */
export function applyEventToMessage<M extends Message>(message: M, event: StreamEvent, options: ApplyEventOptions): M | undefined {
  if (event.type === 'retry') return { ...message, retrying: event.data }
  if (message.retrying !== undefined && event.type !== 'usage' && event.type !== 'speed') {
    const next = applyEventToMessage(settled(message), event, options)
    return next ?? settled(message)
  }
  switch (event.type) {
    case 'text': {
      if (!event.data) return message
      const content = [...message.content]
      const last = content[content.length - 1]
      if (last && last.type === 'text') content[content.length - 1] = { type: 'text', text: last.text + event.data }
      else content.push({ type: 'text', text: event.data })
      return { ...message, content }
    }
    case 'reasoning': {
      const signature = event.signature ?? message.reasoning?.signature
      return { ...message, reasoning: { text: (message.reasoning?.text ?? '') + event.data, ...(signature !== undefined ? { signature } : {}) } }
    }
    case 'tool_calls':
      return { ...message, toolCalls: mergeToolCalls(message.toolCalls, event.data) }
    case 'usage':
      return { ...message, usage: event.data }
    case 'grounding':
      // Each event sets the keys it carries: web citations arriving later keep the knowledge sources.
      return { ...message, grounding: { ...message.grounding, ...event.data } }
    case 'speed':
      return { ...message, speed: event.data }
    case 'error':
      return { ...message, error: event.data }
    case 'base64_image':
      if (!options.inlineImages) return undefined
      return { ...message, content: [...message.content, { type: 'image_url', imageUrl: { url: `data:${event.data.mimeType};base64,${event.data.image}` } }] }
    default:
      return undefined
  }
}

/**
 * A reply as the renderer shows it while it streams: the same runtime events the core writes
 * into the database, applied to a Message. `reasoningDurationMs` is measured here.
 */
export interface LiveMessage extends Message {
  reasoningStartedAt?: number
  reasoningDurationMs?: number
}

/** The renderer's live reply: the shared application plus how long the model reasoned. */
export function applyStreamEvent(message: LiveMessage, event: StreamEvent, now = Date.now()): LiveMessage {
  const next = applyEventToMessage(message, event, { inlineImages: true })
  if (!next || next === message) return message
  if (event.type === 'reasoning') return { ...next, reasoningStartedAt: message.reasoningStartedAt ?? now }
  if (event.type === 'text' && message.reasoningStartedAt !== undefined && message.reasoningDurationMs === undefined)
    return { ...next, reasoningDurationMs: now - message.reasoningStartedAt }
  return next
}
