import type { ToolCall } from '../../../shared/stream/events'

/**
 * Runtime `tool_calls` events are fragments keyed by `index` (the first carries id and name,
 * later ones more argument text). The gateway re-emits them as each API's deltas and, for the
 * non-streamed answers, needs the whole calls: this keeps both views.
 */
export class ToolCallAssembler {
  private readonly calls = new Map<number, { id: string; name: string; arguments: string }>()

  /** Adds fragments; returns, per fragment, its index and whether it opened a new call. */
  add(fragments: readonly ToolCall[]): Array<{ index: number; opened: boolean; id: string; name: string; argumentsDelta: string }> {
    const out: Array<{ index: number; opened: boolean; id: string; name: string; argumentsDelta: string }> = []
    for (const [position, fragment] of fragments.entries()) {
      const index = fragment.index ?? (fragment.id ? this.indexOfId(fragment.id) ?? this.calls.size : Math.max(0, this.calls.size - 1 + position))
      let call = this.calls.get(index)
      const opened = !call
      if (!call) {
        call = { id: fragment.id || `call_${index}`, name: fragment.function.name, arguments: '' }
        this.calls.set(index, call)
      } else {
        if (!call.name && fragment.function.name) call.name = fragment.function.name
        if (fragment.id && call.id.startsWith('call_') && call.id === `call_${index}`) call.id = fragment.id
      }
      call.arguments += fragment.function.arguments ?? ''
      out.push({ index, opened, id: call.id, name: call.name, argumentsDelta: fragment.function.arguments ?? '' })
    }
    return out
  }

  private indexOfId(id: string): number | undefined {
    for (const [index, call] of this.calls) if (call.id === id) return index
    return undefined
  }

  get size(): number {
    return this.calls.size
  }

  /** The whole calls, in index order. */
  all(): Array<{ index: number; id: string; name: string; arguments: string }> {
    return [...this.calls.entries()].sort(([a], [b]) => a - b).map(([index, call]) => ({ index, ...call }))
  }
}

/** Arguments as an object for APIs that carry them parsed (Anthropic `tool_use.input`). */
export function parseArguments(text: string): Record<string, unknown> {
  if (!text.trim()) return {}
  try {
    const value: unknown = JSON.parse(text)
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { value }
  } catch {
    return { _raw: text }
  }
}
