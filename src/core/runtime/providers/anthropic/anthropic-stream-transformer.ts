import type { NativeStreamEvent, StreamEvent, ToolCall } from '../../../../shared/stream/events'
import type { UsageRecord } from '../../../../shared/stream/usage'
import { convertAnthropicUsage, type AnthropicRawUsage } from './anthropic-usage'

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
    /** web_search_tool_result: the pages found. */
    content?: Array<{ type?: string; url?: string; title?: string }> | { type?: string; error_code?: string }
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

export interface AnthropicStreamOptions {
  /**
   * Also pass each content-block event and the closing message_delta on unchanged, as a
   * `native` event before the events made of it: a local-API request with server tools, whose
   * client is given the upstream's blocks as they are (server_tool_use, web_search_tool_result,
   * citations), which the app's own events do not carry.
   */
  native?: boolean
}

const NATIVE_CHUNKS = new Set(['content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta'])

/**
 * Anthropic stream events → {@link StreamEvent}s. Tool calls are numbered by their order
 * among tool_use blocks (not by content-block index) so the merger sees 0, 1, 2…
 */
export function createAnthropicStreamTransformer(options: AnthropicStreamOptions = {}): AnthropicStreamTransformer {
  let usage: UsageRecord | undefined
  let stopped = false
  let finished = false
  const toolIndexByBlock = new Map<number, number>()
  const toolIdByBlock = new Map<number, string>()
  /** Server-side web search calls: their input JSON carries the query shown with the results. */
  const searchInputByBlock = new Map<number, string>()
  const searchQueries: string[] = []

  const toolDelta = (block: number, args: string): ToolCall[] | undefined => {
    const index = toolIndexByBlock.get(block)
    if (index === undefined || args === '') return undefined
    return [{ id: toolIdByBlock.get(block) ?? '', type: 'function', index, function: { name: '', arguments: args } }]
  }

  const push = (chunk: AnthropicStreamChunk): StreamEvent[] => {
    if (!options.native || !NATIVE_CHUNKS.has(chunk.type)) return events(chunk)
    return [{ type: 'native', data: { api: 'anthropic-messages', event: chunk as unknown as NativeStreamEvent['event'] } }, ...events(chunk)]
  }

  const events = (chunk: AnthropicStreamChunk): StreamEvent[] => {
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
        if (block.type === 'server_tool_use') {
          // Server tools (web search) run at Anthropic: never a tool call for the caller to execute.
          searchInputByBlock.set(chunk.index ?? 0, '')
          return []
        }
        if (block.type === 'tool_use') {
          const blockIndex = chunk.index ?? 0
          const index = toolIndexByBlock.size
          const id = block.id ?? `toolu_${blockIndex}`
          toolIndexByBlock.set(blockIndex, index)
          toolIdByBlock.set(blockIndex, id)
          return [{ type: 'tool_calls', data: [{ id, type: 'function', index, function: { name: block.name ?? '', arguments: '' } }] }]
        }
        if (block.type === 'web_search_tool_result' && Array.isArray(block.content)) {
          const citations = block.content.filter((r) => r.url).map((r) => ({ url: r.url!, ...(r.title ? { title: r.title } : {}) }))
          if (citations.length === 0) return []
          return [{ type: 'grounding', data: { citations, ...(searchQueries.length ? { searchQueries: [...searchQueries] } : {}) } }]
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
            const block = chunk.index ?? 0
            if (searchInputByBlock.has(block)) {
              searchInputByBlock.set(block, searchInputByBlock.get(block)! + (delta.partial_json ?? ''))
              return []
            }
            const calls = toolDelta(block, delta.partial_json ?? '')
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
      case 'content_block_stop': {
        const input = searchInputByBlock.get(chunk.index ?? 0)
        if (input !== undefined) {
          try {
            const query = (JSON.parse(input || '{}') as { query?: unknown }).query
            if (typeof query === 'string' && query) searchQueries.push(query)
          } catch {
            // a partial or odd input only loses the query label, never the reply
          }
          searchInputByBlock.delete(chunk.index ?? 0)
        }
        return []
      }
      default:
        // ping and block types we do not know carry nothing for the user.
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
