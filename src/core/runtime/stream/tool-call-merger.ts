import type { ToolCall } from '../../../shared/stream/events'

/** One streamed tool-call fragment as OpenAI-style providers send it (index/id/type may be missing). */
export interface ToolCallDelta {
  index?: number
  id?: string | null
  type?: string | null
  function?: { name?: string | null; arguments?: string | null } | null
}

/**
 * Normalises streamed tool-call fragments: fills the index (array position when absent,
 * as Mistral and MiniMax send), the id (remembered per index), the type; rejects a
 * fragment without `function` (that is a malformed chunk).
 */
export class ToolCallDeltaNormaliser {
  private readonly ids = new Map<number, string>()
  private seq = 0

  normalise(deltas: readonly ToolCallDelta[]): ToolCall[] {
    const out: ToolCall[] = []
    for (let i = 0; i < deltas.length; i++) {
      const delta = deltas[i]!
      if (!delta.function) throw new Error('Invalid tool call: function is null')
      const index = typeof delta.index === 'number' ? delta.index : i
      let id = delta.id ?? this.ids.get(index)
      if (!id) id = `call_${Date.now().toString(36)}_${this.seq++}`
      this.ids.set(index, id)
      out.push({
        id,
        type: delta.type ?? 'function',
        function: { name: delta.function.name ?? '', arguments: delta.function.arguments ?? '' },
        index
      })
    }
    return out
  }
}

/**
 * Merges `tool_calls` event fragments into whole calls: same index → one call whose
 * arguments are concatenated (providers.md §3). Consumers (chat service, CLI) use this.
 */
export class ToolCallMerger {
  private readonly calls = new Map<number, ToolCall>()

  add(fragments: readonly ToolCall[]): void {
    fragments.forEach((fragment, position) => {
      const index = fragment.index ?? position
      const existing = this.calls.get(index)
      if (!existing) {
        this.calls.set(index, { id: fragment.id, type: fragment.type || 'function', function: { name: fragment.function.name ?? '', arguments: fragment.function.arguments ?? '' }, index })
        return
      }
      if (!existing.id && fragment.id) existing.id = fragment.id
      if (!existing.function.name && fragment.function.name) existing.function.name = fragment.function.name
      existing.function.arguments += fragment.function.arguments ?? ''
    })
  }

  /** The merged calls in index order. */
  result(): ToolCall[] {
    return [...this.calls.entries()].sort((a, b) => a[0] - b[0]).map(([, call]) => call)
  }
}
