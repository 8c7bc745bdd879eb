import type { StreamEvent } from '../../../../shared/stream/events'
import type { UsageRecord } from '../../../../shared/stream/usage'

/** One decoded chunk of a Llama InvokeModelWithResponseStream body. */
export interface BedrockLlamaChunk {
  generation?: string
  generation_token_count?: number
  prompt_token_count?: number | null
  stop_reason?: string | null
  'amazon-bedrock-invocationMetrics'?: { inputTokenCount?: number; outputTokenCount?: number }
}

export interface BedrockLlamaStreamTransformer {
  push(chunk: BedrockLlamaChunk): StreamEvent[]
  readonly finished: boolean
}

/**
 * Llama chunks on Bedrock → {@link StreamEvent}s. The stop reason is forwarded as Llama
 * reports it ("stop" or "length") so a truncated answer stays visible as such.
 */
export function createBedrockLlamaStreamTransformer(): BedrockLlamaStreamTransformer {
  let finished = false
  let promptTokens: number | undefined
  let outputTokens = 0

  const push = (chunk: BedrockLlamaChunk): StreamEvent[] => {
    const out: StreamEvent[] = []
    if (typeof chunk.prompt_token_count === 'number') promptTokens = chunk.prompt_token_count
    if (typeof chunk.generation_token_count === 'number') outputTokens = chunk.generation_token_count
    if (chunk.generation) out.push({ type: 'text', data: chunk.generation })
    if (chunk.stop_reason) {
      finished = true
      out.push({ type: 'stop', data: chunk.stop_reason })
      const metrics = chunk['amazon-bedrock-invocationMetrics']
      const input = metrics?.inputTokenCount ?? promptTokens
      const output = metrics?.outputTokenCount ?? outputTokens
      if (input !== undefined || metrics) {
        const usage: UsageRecord = {
          inputTextTokens: input ?? 0,
          totalInputTokens: input ?? 0,
          outputTextTokens: output,
          totalOutputTokens: output,
          totalTokens: (input ?? 0) + output
        }
        out.push({ type: 'usage', data: usage })
      }
    }
    return out
  }

  return {
    push,
    get finished() {
      return finished
    }
  }
}
