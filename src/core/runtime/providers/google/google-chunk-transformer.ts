import type { ChunkTransformer } from '../../stream/run-chat-stream'
import { createGoogleStreamTransformer, type GoogleStreamChunk, type GoogleStreamTransformerOptions } from './google-stream-transformer'

/** The Gemini transformer in runChatStream's shape; finishReason is Gemini's end marker. */
export function googleChunkTransformer(options: GoogleStreamTransformerOptions = {}): ChunkTransformer<GoogleStreamChunk> & { sawEndMarker(): boolean } {
  const inner = createGoogleStreamTransformer(options)
  return {
    transform(chunk, emit) {
      for (const event of inner.push(chunk)) emit(event)
    },
    sawEndMarker: () => inner.finished
  }
}
