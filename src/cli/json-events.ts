import { mergeToolCalls } from '../shared/chat/apply-event'
import type { ToolCall } from '../shared/stream/events'

/** One line of `chat --json`: a stream event or a tool event, as `{ type, data }`. */
export interface JsonEvent {
  type: string
  data?: unknown
}

/**
 * The `--json` lines of a chat, in the order things happened. A model streams a tool call in
 * fragments (the name in the first, the arguments in pieces, later ones with an empty name);
 * they are merged and printed as one `tool_calls` event when the step's stream ends — before
 * its `stop`, or before the first tool event if no stop came — so a reader gets whole calls.
 */
export function jsonEventWriter(write: (line: string) => void): { push(event: JsonEvent): void; end(): void } {
  let pending: ToolCall[] = []
  const flush = () => {
    if (pending.length === 0) return
    write(`${JSON.stringify({ type: 'tool_calls', data: pending })}\n`)
    pending = []
  }
  return {
    push(event) {
      if (event.type === 'tool_calls') {
        pending = mergeToolCalls(pending, event.data as ToolCall[])
        return
      }
      // Text and reasoning are most of a long reply's lines: the same bytes as the general case, without an object to build and walk per token.
      if ((event.type === 'text' || event.type === 'reasoning') && typeof event.data === 'string') {
        write(`{"type":"${event.type}","data":${JSON.stringify(event.data)}}\n`)
        return
      }
      if (event.type === 'stop' || event.type.startsWith('tool_')) flush()
      write(`${JSON.stringify({ type: event.type, data: event.data })}\n`)
    },
    end: flush
  }
}
