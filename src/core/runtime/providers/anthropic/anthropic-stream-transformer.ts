import type { StreamEvent, ToolCall } from '../../../../shared/stream/events'
import type { UsageRecord } from '../../../../shared/stream/usage'
import { convertAnthropicUsage, type AnthropicRawUsage } from '../../../../shared/stream/usage-converters/anthropic'

/**
 * One Anthropic Messages stream event as the SDK yields it (and as Bedrock relays it for
 * Claude). Typed loosely on purpose: proxies send partial shapes and unknown block types.
 */
export interface AnthropicStreamChunk {
  type: string
  index?: number
  message?: { id?: string; usage?: AnthropicRawUsage | null } | null
  content_block?: {
    type: string
    text?: string | null
    thinking?: string | null
    signature?: string | null
    data?: string | null
    id?: string
    name?: string
  }
  delta?: {
    type?: string
    text?: string
    thinking?: string
    signature?: string
    partial_json?: string
    stop_reason?: string | null
  }
  usage?: AnthropicRawUsage | null
  error?: { type?: string; message?: string }
}

export interface AnthropicStreamTransformer {
  push(chunk: AnthropicStreamChunk): StreamEvent[]
  /** True once the provider's end marker (message_delta stop or message_stop) was seen. */
  readonly finished: boolean
  readonly usage: UsageRecord | undefined
}

/**
 * Anthropic stream events → {@link StreamEvent}s. Tool calls are numbered by their order
 * among tool_use blocks (not by content-block index) so the merger sees 0, 1, 2…
 */
export function createAnthropicStreamTransformer(): AnthropicStreamTransformer {
  let usage: UsageRecord | undefined
  let stopped = false
  let finished = false
  const toolIndexByBlock = new Map<number, number>()
  const toolIdByBlock = new Map<number, string>()

  const toolDelta = (block: number, args: string): ToolCall[] | undefined => {
    const index = toolIndexByBlock.get(block)
    if (index === undefined || args === '') return undefined
    return [{ id: toolIdByBlock.get(block) ?? '', type: 'function', index, function: { name: '', arguments: args } }]
  }

  const push = (chunk: AnthropicStreamChunk): StreamEvent[] => {
    switch (chunk.type) {
      case 'message_start':
        usage = convertAnthropicUsage(chunk, usage)
        return []
      case 'content_block_start': {
        const block = chunk.content_block
        if (!block) return []
        if (block.type === 'text' && block.text) return [{ type: 'text', data: block.text }]
        if (block.type === 'thinking') {
          const out: StreamEvent[] = []
          if (block.thinking) out.push({ type: 'reasoning', data: block.thinking })
          if (block.signature) out.push({ type: 'reasoning', data: '', signature: block.signature })
          return out
        }
        if (block.type === 'redacted_thinking' && block.data) {
          return [{ type: 'reasoning', data: '', signature: block.data, redacted: true }]
        }
        if (block.type === 'tool_use' || block.type === 'server_tool_use') {
          const blockIndex = chunk.index ?? 0
          const index = toolIndexByBlock.size
          const id = block.id ?? `toolu_${blockIndex}`
          toolIndexByBlock.set(blockIndex, index)
          toolIdByBlock.set(blockIndex, id)
          // Server tools (web search) run at Anthropic; the caller must not execute them.
          if (block.type === 'server_tool_use') return []
          return [{ type: 'tool_calls', data: [{ id, type: 'function', index, function: { name: block.name ?? '', arguments: '' } }] }]
        }
        return []
      }
      case 'content_block_delta': {
        const delta = chunk.delta
        if (!delta) return []
        switch (delta.type) {
          case 'text_delta':
            return delta.text ? [{ type: 'text', data: delta.text }] : []
          case 'thinking_delta':
            return delta.thinking ? [{ type: 'reasoning', data: delta.thinking }] : []
          case 'signature_delta':
            return delta.signature ? [{ type: 'reasoning', data: '', signature: delta.signature }] : []
          case 'input_json_delta': {
            const calls = toolDelta(chunk.index ?? 0, delta.partial_json ?? '')
            return calls ? [{ type: 'tool_calls', data: calls }] : []
          }
          default:
            return []
        }
      }
      case 'message_delta': {
        usage = convertAnthropicUsage(chunk, usage)
        const out: StreamEvent[] = []
        if (chunk.delta?.stop_reason) {
          out.push({ type: 'stop', data: chunk.delta.stop_reason })
          stopped = true
          finished = true
        }
        if (usage) out.push({ type: 'usage', data: usage })
        return out
      }
      case 'message_stop':
        finished = true
        if (stopped) return []
        stopped = true
        return [{ type: 'stop', data: 'message_stop' }]
      default:
        // ping, content_block_stop and block types we do not know carry nothing for the user.
        return []
    }
  }

  return {
    push,
    get finished() {
      return finished
    },
    get usage() {
      return usage
    }
  }
}
