import type OpenAI from 'openai'
import type { AppError } from '../../../../shared/errors/app-error'
import type { StreamEvent } from '../../../../shared/stream/events'
import { ChatCompletionsTransformer, type OpenAIChatChunk } from '../../openai-compatible/chat-completions-transformer'
import { endMarkerFetch, type StreamWatch } from '../../openai-compatible/end-marker-fetch'
import type { ChatBody } from '../../openai-compatible/payload-rules'
import { runChatStream } from '../../stream/run-chat-stream'
import type { CallOptions } from '../../types'

export interface OpenAIWireChat {
  provider: string
  options?: CallOptions
  /** The SDK client for this call, built on the given fetch (which watches for `[DONE]`). */
  client(fetchImpl: typeof fetch): Promise<OpenAI>
  /** Shapes the body lazily: catalogue lookups happen inside the stream, never throwing out of chat(). */
  body(): Promise<ChatBody>
  mapError(error: unknown, aborted: boolean): AppError
}

/**
 * Chat-completions streaming for a native adapter that speaks the OpenAI wire with its own
 * URL scheme (Azure OpenAI's deployment paths): the runtime core's transformer, end-marker fetch and runChatStream,
 * with the adapter's own client, body and error rules.
 */
export function openAIWireChat(args: OpenAIWireChat): AsyncIterable<StreamEvent> {
  return (async function* () {
    const watch: StreamWatch = { done: false }
    const transformer = new ChatCompletionsTransformer({ provider: args.provider })
    yield* runChatStream<OpenAIChatChunk>({
      provider: args.provider,
      ...(args.options ? { options: args.options } : {}),
      transformer,
      mapError: args.mapError,
      sawEndMarker: () => watch.done || transformer.finished,
      async open(signal, activity) {
        watch.onBytes = activity
        const body = await args.body()
        const sdk = await args.client(endMarkerFetch(args.options?.fetch ?? globalThis.fetch, watch))
        return (await sdk.chat.completions.create({ ...body, stream: true } as never, { signal })) as unknown as AsyncIterable<OpenAIChatChunk>
      }
    })
  })()
}
