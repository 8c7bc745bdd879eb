import type { StreamEvent, ToolCall } from '../../../../shared/stream/events'
import type { UsageRecord } from '../../../../shared/stream/usage'
import { ChunkParseError, type ChunkTransformer } from '../../stream/run-chat-stream'
import { ThinkTagSplitter } from '../../stream/think-tag-splitter'

/** One Workers AI stream payload: `{"response": "…"}`, tool calls, usage at the end. */
interface WorkersAIChunk {
  response?: string | null
  tool_calls?: Array<{ id?: string; name?: string; arguments?: unknown }>
  usage?: { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number }
}

/**
 * Workers AI SSE payloads → events. Reasoning models (DeepSeek-R1 distills, QwQ) put their
 * thinking in `<think>` tags inside `response`; `[DONE]` is the end marker.
 */
export class CloudflareStreamTransformer implements ChunkTransformer<string> {
  private readonly splitter = new ThinkTagSplitter()
  private usage: UsageRecord | undefined
  private toolCount = 0
  finished = false

  transform(data: string, emit: (event: StreamEvent) => void): void {
    if (data === '[DONE]') {
      this.end(emit)
      return
    }
    let chunk: WorkersAIChunk
    try {
      chunk = JSON.parse(data) as WorkersAIChunk
    } catch {
      throw new ChunkParseError('Workers AI chunk is not JSON', data)
    }
    if (typeof chunk.response === 'string' && chunk.response) {
      for (const piece of this.splitter.push(chunk.response)) emit({ type: piece.type, data: piece.data })
    }
    if (chunk.tool_calls?.length) {
      const calls: ToolCall[] = chunk.tool_calls.map((call) => {
        const index = this.toolCount++
        return {
          id: call.id ?? `call_${index}`,
          type: 'function',
          index,
          function: { name: call.name ?? '', arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {}) }
        }
      })
      emit({ type: 'tool_calls', data: calls })
    }
    if (chunk.usage) {
      const input = chunk.usage.prompt_tokens ?? 0
      const output = chunk.usage.completion_tokens ?? 0
      this.usage = { totalInputTokens: input, inputTextTokens: input, totalOutputTokens: output, outputTextTokens: output, totalTokens: chunk.usage.total_tokens ?? input + output }
    }
  }

  flush(emit: (event: StreamEvent) => void): void {
    for (const piece of this.splitter.flush()) emit({ type: piece.type, data: piece.data })
  }

  private end(emit: (event: StreamEvent) => void): void {
    this.finished = true
    this.flush(emit)
    emit({ type: 'stop', data: this.toolCount > 0 ? 'tool_calls' : 'stop' })
    if (this.usage) emit({ type: 'usage', data: this.usage })
  }
}
