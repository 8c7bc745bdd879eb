import type { AppError } from '../../../../shared/errors/app-error'
import type { StreamEvent, ToolCall } from '../../../../shared/stream/events'
import type { UsageRecord } from '../../../../shared/stream/usage'
import type { ChunkTransformer } from '../../stream/run-chat-stream'
import { ThinkTagSplitter } from '../../stream/think-tag-splitter'

/** One /api/chat NDJSON line as the SDK yields it (fields we read; all optional on the wire). */
export interface OllamaChatChunk {
  message?: {
    role?: string
    content?: string
    thinking?: string
    tool_calls?: { function?: { name?: string; arguments?: unknown } }[]
  }
  done?: boolean
  done_reason?: string
  prompt_eval_count?: number
  eval_count?: number
  /** Nanoseconds Ollama spent generating `eval_count` tokens (its own timing). */
  eval_duration?: number
  /** An `{"error": …}` line: the server gave up mid-reply. */
  error?: string
}

/** Usage from Ollama's eval counts: prompt_eval_count in, eval_count out. */
export function ollamaUsage(chunk: OllamaChatChunk): UsageRecord | undefined {
  const input = chunk.prompt_eval_count
  const output = chunk.eval_count
  if (typeof input !== 'number' && typeof output !== 'number') return undefined
  const usage: UsageRecord = {}
  if (typeof input === 'number') {
    usage.inputTextTokens = input
    usage.totalInputTokens = input
  }
  if (typeof output === 'number') {
    usage.outputTextTokens = output
    usage.totalOutputTokens = output
  }
  usage.totalTokens = (input ?? 0) + (output ?? 0)
  return usage
}

const randomId = () => Math.random().toString(36).slice(2, 10)

/**
 * /api/chat chunks → events: `message.thinking` → reasoning; content through the think-tag
 * splitter (models that think inline); tool calls (whole objects, never fragments, in
 * Ollama) → tool_calls with JSON-string arguments; `done` → stop, then usage from the
 * eval counts. Ollama has no ids for tool calls, so one is made from name, index and a
 * random suffix.
 */
export function ollamaChunkTransformer(
  toError: (message: string) => AppError = (message) => ({ errorType: 'OllamaBizError', message, status: 472, provider: 'ollama' })
): ChunkTransformer<OllamaChatChunk> & { sawEndMarker(): boolean; tokensPerSecond(): number | undefined } {
  const splitter = new ThinkTagSplitter()
  let done = false
  let tokensPerSecond: number | undefined
  let toolIndex = 0
  let calledTools = false
  return {
    transform(chunk, emit) {
      if (chunk.error !== undefined) {
        for (const piece of splitter.flush()) emit(piece as StreamEvent)
        done = true
        emit({ type: 'error', data: toError(chunk.error) })
        emit({ type: 'stop', data: 'error' })
        return
      }
      const message = chunk.message
      if (message?.thinking) emit({ type: 'reasoning', data: message.thinking })
      if (message?.content) for (const piece of splitter.push(message.content)) emit(piece as StreamEvent)
      if (message?.tool_calls?.length) {
        const calls: ToolCall[] = message.tool_calls.map((call) => {
          const name = call.function?.name ?? ''
          const index = toolIndex++
          const args = call.function?.arguments
          return {
            id: `${name}_${index}_${randomId()}`,
            type: 'function',
            function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}) },
            index
          }
        })
        calledTools = true
        emit({ type: 'tool_calls', data: calls })
      }
      if (chunk.done) {
        done = true
        for (const piece of splitter.flush()) emit(piece as StreamEvent)
        const reason = chunk.done_reason === 'length' ? 'length' : calledTools ? 'tool_calls' : 'stop'
        emit({ type: 'stop', data: reason })
        const usage = ollamaUsage(chunk)
        if (usage) emit({ type: 'usage', data: usage })
        // Ollama's own count and timing: a local burst measured by chunk arrival reads as thousands of tok/s.
        if (typeof chunk.eval_count === 'number' && typeof chunk.eval_duration === 'number' && chunk.eval_count > 0 && chunk.eval_duration > 0)
          tokensPerSecond = chunk.eval_count / (chunk.eval_duration / 1e9)
      }
    },
    flush(emit) {
      for (const piece of splitter.flush()) emit(piece as StreamEvent)
    },
    sawEndMarker: () => done,
    tokensPerSecond: () => tokensPerSecond
  }
}
