import type { ChunkTransformer } from '../../stream/run-chat-stream'
import { createAnthropicStreamTransformer, type AnthropicStreamChunk, type AnthropicStreamOptions } from './anthropic-stream-transformer'

/** The Anthropic transformer in runChatStream's shape, plus its end-marker flag. */
export function anthropicChunkTransformer(options: AnthropicStreamOptions = {}): ChunkTransformer<AnthropicStreamChunk> & { sawEndMarker(): boolean } {
  const inner = createAnthropicStreamTransformer(options)
  return {
    transform(chunk, emit) {
      for (const event of inner.push(chunk)) emit(event)
    },
    sawEndMarker: () => inner.finished
  }
}
