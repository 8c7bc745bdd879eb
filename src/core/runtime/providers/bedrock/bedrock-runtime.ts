import type * as BedrockSdk from '@aws-sdk/client-bedrock-runtime'
import { assertModelIdIsValue, modelIdProblem } from '../../model-path'
import { loadBedrock } from '../../sdk/load-sdk'
import { AppErrorException } from '../../../../shared/errors/app-error'
import type { StreamEvent } from '../../../../shared/stream/events'
import { requireBedrockCredentials } from '../../credentials'
import { runtimeError } from '../../runtime-error'
import { nativeChatStream, type ChunkTransformer } from '../../stream/run-chat-stream'
import type { CallOptions, ChatRequest, EmbeddingsRequest, EmbeddingsResult, ProviderFactory } from '../../types'
import { createAnthropicStreamTransformer, type AnthropicStreamChunk } from '../anthropic/anthropic-stream-transformer'
import type { AnthropicChatMessage } from '../anthropic/build-anthropic-payload'
import { createBedrockLlamaStreamTransformer, type BedrockLlamaChunk } from './bedrock-llama-stream-transformer'
import { bedrockFamily, buildBedrockClaudeBody, buildBedrockLlamaBody } from './build-bedrock-body'
import { mapBedrockError } from './map-bedrock-error'

export const BEDROCK_DEFAULT_REGION = 'us-east-1'

/** One payload part of the response stream: JSON bytes in the model's own format. */
type Part = Uint8Array

const decoder = new TextDecoder()

/** Decodes each part's JSON and hands it to the model family's transformer. */
function partTransformer(family: 'claude' | 'llama'): ChunkTransformer<Part> & { sawEndMarker(): boolean } {
  const claude = family === 'claude' ? createAnthropicStreamTransformer() : undefined
  const llama = family === 'llama' ? createBedrockLlamaStreamTransformer() : undefined
  return {
    transform(bytes, emit: (e: StreamEvent) => void) {
      const chunk: unknown = JSON.parse(decoder.decode(bytes))
      const events = claude ? claude.push(chunk as AnthropicStreamChunk) : llama!.push(chunk as BedrockLlamaChunk)
      for (const event of events) emit(event)
    },
    sawEndMarker: () => (claude ? claude.finished : llama!.finished)
  }
}

type StreamItem = { chunk?: { bytes?: Uint8Array } } & Record<string, unknown>

/** Modelled exceptions may arrive as stream members; they end the reply like a thrown error. */
async function* payloadParts(body: AsyncIterable<StreamItem>): AsyncGenerator<Part> {
  for await (const item of body) {
    if (item.chunk?.bytes) {
      yield item.chunk.bytes
      continue
    }
    const [name, value] = Object.entries(item).find(([, v]) => v && typeof v === 'object') ?? []
    if (name) {
      const message = (value as { message?: string }).message ?? name
      throw Object.assign(new Error(message), { name: name.charAt(0).toUpperCase() + name.slice(1) })
    }
  }
}

/** AWS Bedrock through @aws-sdk/client-bedrock-runtime: Claude and Llama streams, Titan embeddings. */
export const createBedrockRuntime: ProviderFactory = (credentials, context) => {
  const provider = context.providerId
  requireBedrockCredentials(credentials, provider)
  const region = credentials.region?.trim() || BEDROCK_DEFAULT_REGION
  const secrets = [credentials.secretAccessKey, credentials.sessionToken, credentials.accessKeyId]
  const endpoint = credentials.baseURL?.trim() || undefined
  // One client per runtime, built on first use (the SDK loads then, not at start).
  let shared: Promise<{ sdk: typeof BedrockSdk; client: BedrockSdk.BedrockRuntimeClient }> | undefined
  const bedrock = () =>
    (shared ??= loadBedrock().then((sdk) => ({
      sdk,
      client: new sdk.BedrockRuntimeClient({
        region,
        // runChatStream owns retries (before the first chunk, visibly).
        maxAttempts: 1,
        ...(endpoint ? { endpoint } : {}),
        credentials: {
          accessKeyId: credentials.accessKeyId!.trim(),
          secretAccessKey: credentials.secretAccessKey!.trim(),
          ...(credentials.sessionToken ? { sessionToken: credentials.sessionToken } : {})
        }
      })
    })))
  const mapError = (error: unknown, aborted = false) => mapBedrockError(error, { provider, secrets, aborted })

  return {
    id: provider,
    chat(request: ChatRequest & { messages: AnthropicChatMessage[] }, options?: CallOptions) {
      const family = bedrockFamily(request.model)
      const problem = modelIdProblem(request.model)
      if (!family || problem) {
        const error = problem
          ? runtimeError('ValidationError', `The model id ${JSON.stringify(request.model)} cannot be sent to ${provider}: ${problem}. A model id is a name, never a path.`, provider)
          : runtimeError('ModelNotFound', `Bedrock model ${request.model} is not a Claude or Llama model this app can stream.`, provider)
        return (async function* (): AsyncGenerator<StreamEvent> {
          yield { type: 'error', data: error }
          yield { type: 'stop', data: 'error' }
        })()
      }
      const transformer = partTransformer(family)
      return nativeChatStream({ provider, options, mapError }, transformer, async (signal) => {
        const body = family === 'claude' ? buildBedrockClaudeBody(request) : buildBedrockLlamaBody(request)
        const { sdk, client } = await bedrock()
        const response = await client.send(
          new sdk.InvokeModelWithResponseStreamCommand({ modelId: request.model, contentType: 'application/json', accept: 'application/json', body: JSON.stringify(body) }),
          { abortSignal: signal }
        )
        if (!response.body) throw Object.assign(new Error('Bedrock returned no stream body'), { name: 'ProviderBizError' })
        return payloadParts(response.body as AsyncIterable<StreamItem>)
      })
    },

    /** Titan embeddings: one invoke per input (inputText, dimensions, normalize). */
    async embeddings(request: EmbeddingsRequest, options?: CallOptions): Promise<EmbeddingsResult> {
      const inputs = Array.isArray(request.input) ? request.input : [request.input]
      assertModelIdIsValue(request.model, provider)
      try {
        const { sdk, client } = await bedrock()
        let promptTokens = 0
        const embeddings: number[][] = []
        for (const inputText of inputs) {
          const response = await client.send(
            new sdk.InvokeModelCommand({
              modelId: request.model,
              contentType: 'application/json',
              accept: 'application/json',
              body: JSON.stringify({ inputText, ...(request.dimensions ? { dimensions: request.dimensions } : {}), normalize: true })
            }),
            { abortSignal: options?.signal }
          )
          const parsed = JSON.parse(decoder.decode(response.body)) as { embedding: number[]; inputTextTokenCount?: number }
          embeddings.push(parsed.embedding)
          promptTokens += parsed.inputTextTokenCount ?? 0
        }
        return { embeddings, usage: { promptTokens, totalTokens: promptTokens } }
      } catch (error) {
        throw new AppErrorException(mapError(error, options?.signal?.aborted))
      }
    }
  }
}
