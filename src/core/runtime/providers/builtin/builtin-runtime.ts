import { AppErrorException, type AppError } from '../../../../shared/errors/app-error'
import type { Speed, StreamEvent } from '../../../../shared/stream/events'
import { builtinEngine, type BuiltinEngine } from '../../../engine'
import { ModelFileError, ModelTooLargeError } from '../../../engine/builtin-engine'
import { EngineCrashedError, EngineError, type ChatStreamItem } from '../../../engine/engine-client'
import { checkJsonSchema } from '../../../engine/json-schema-check'
import type { ChatParams } from '../../../engine/protocol'
import { runtimeError } from '../../runtime-error'
import { runChatStream, type ChunkTransformer } from '../../stream/run-chat-stream'
import type { CallOptions, ChatRequest, EmbeddingsRequest, EmbeddingsResult, ModelsResult, ProviderFactory, ProviderRuntime } from '../../types'
import { toEngineHistory } from './builtin-messages'

export const BUILTIN_PROVIDER_ID = 'builtin'

/** An engine failure as the catalogue error the app shows. */
export function engineAppError(error: unknown, provider: string): AppError {
  if (error instanceof AppErrorException) return error.error
  if (error instanceof ModelTooLargeError) return runtimeError('ProviderBizError', error.message, provider, { reason: 'too-large', ...error.figures })
  if (error instanceof ModelFileError) {
    return runtimeError(error.reason === 'unknown-model' || error.reason === 'missing' ? 'ModelNotFound' : 'ModelFileUnusable', error.message, provider, { reason: error.reason })
  }
  if (error instanceof EngineCrashedError) return runtimeError('ProviderServiceUnavailable', error.message, provider, { exit: error.exit })
  if (error instanceof EngineError && /longer than the usable context size/i.test(error.message)) {
    return runtimeError('ExceededContextWindow', `An input is longer than the model's embedding context can hold (the engine: ${error.message.trim()}). Send shorter inputs, or raise the model's context length on the Local models page.`, provider)
  }
  // What the client sent is wrong (a token id outside the vocabulary, no such tool): a 400 naming it.
  if (error instanceof EngineError && error.code === 'bad-request') return runtimeError('ValidationError', error.message, provider)
  if (error instanceof EngineError && (error.code === 'context-exceeded' || /compress chat history/i.test(error.message))) {
    // llama.cpp's history does not fit the context even cut down: the prompt is too long, a 400
    // of the request (it fails before any token), not a failing engine.
    return runtimeError('ExceededContextWindow', `The prompt is longer than the model's context can hold, even with older turns dropped (the engine: ${error.message.trim()}). Shorten the system prompt or the last message, or raise the model's context length on the Local models page.`, provider)
  }
  if (error instanceof EngineError) {
    return runtimeError(error.code === 'unsupported-architecture' ? 'CapabilityNotSupported' : error.code === 'not-loaded' ? 'ModelNotFound' : 'ProviderBizError', error.message, provider)
  }
  return runtimeError('InternalError', error instanceof Error ? error.message : String(error), provider)
}

/** What crosses from the engine iterator to the transformer: its items, or the crash that ended it. */
type Item = ChatStreamItem | { type: 'crash'; error: EngineCrashedError }

const STOP: Record<string, string> = { maxTokens: 'length', eogToken: 'stop', stopGenerationTrigger: 'stop', customStopTrigger: 'stop', functionCalls: 'tool_calls' }

function transformer(provider: string, request: ChatRequest, report: (speed: Speed) => void): ChunkTransformer<Item> & { sawEndMarker(): boolean } {
  let ended = false
  let calls = 0
  return {
    sawEndMarker: () => ended,
    transform(item, emit) {
      if (item.type === 'chunk') {
        if (item.chunk.text) emit({ type: item.chunk.kind === 'reasoning' ? 'reasoning' : 'text', data: item.chunk.text })
        return
      }
      if (item.type === 'crash') {
        // What was written stays; the reply is interrupted, not failed.
        ended = true
        emit({ type: 'error', data: runtimeError('ProviderServiceUnavailable', item.error.message, provider, { exit: item.error.exit }) })
        emit({ type: 'stop', data: 'interrupted' })
        return
      }
      const done = item.data
      if (done.functionCalls?.length) {
        emit({
          type: 'tool_calls',
          data: done.functionCalls.map((c) => ({ id: `call_${Date.now().toString(36)}_${calls}`, index: calls++, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.params ?? {}) } }))
        })
      }
      emit({
        type: 'usage',
        data: {
          totalInputTokens: done.promptTokens,
          inputCachedTokens: done.cachedPromptTokens,
          inputCacheMissTokens: done.promptTokens - done.cachedPromptTokens,
          totalOutputTokens: done.outputTokens,
          outputTextTokens: done.outputTokens,
          totalTokens: done.promptTokens + done.outputTokens
        }
      })
      if (done.tokensPerSecond !== undefined) report({ tps: Math.round(done.tokensPerSecond * 100) / 100 })
      if (done.stopReason === 'abort') return // the runner reports the cancellation
      ended = true
      const format = request.response_format
      const schema = format?.type === 'json_schema' ? format.json_schema.schema : format?.type === 'json_object' ? JSON_OBJECT : undefined
      if (schema && done.stopReason !== 'functionCalls') {
        let problems: string[]
        try {
          problems = checkJsonSchema(JSON.parse(done.text), schema)
        } catch {
          problems = [done.stopReason === 'maxTokens' ? 'the reply was cut off by the token limit before the JSON was complete' : 'the reply is not JSON']
        }
        if (problems.length) {
          emit({ type: 'error', data: runtimeError('UpstreamMalformedResponse', `The reply does not match the JSON schema: ${problems.slice(0, 5).join('; ')}.`, provider, { problems }) })
          emit({ type: 'stop', data: 'error' })
          return
        }
      }
      emit({ type: 'stop', data: STOP[done.stopReason] ?? 'stop' })
    }
  }
}

async function* withCrash(source: AsyncIterable<ChatStreamItem>): AsyncGenerator<Item> {
  try {
    yield* source
  } catch (error) {
    if (error instanceof EngineCrashedError) {
      yield { type: 'crash', error }
      return
    }
    throw error
  }
}

/** JSON mode's grammar: an object whose keys and values may be anything JSON allows. */
const JSON_OBJECT: Record<string, unknown> = { type: 'object', additionalProperties: true }

export function chatParams(request: ChatRequest, provider: string): Omit<ChatParams, 'modelId'> {
  const params: Omit<ChatParams, 'modelId'> = { history: toEngineHistory(request.messages, provider) }
  if (request.max_tokens) params.maxTokens = request.max_tokens
  if (request.temperature !== undefined) params.temperature = request.temperature
  if (request.top_p !== undefined) params.topP = request.top_p
  if (request.stop?.length) params.stop = request.stop
  if (request.logit_bias && Object.keys(request.logit_bias).length > 0) params.logitBias = request.logit_bias
  const choice = request.tool_choice
  if (request.tools?.length && choice !== 'none') {
    params.functions = request.tools.map((t) => ({
      name: t.function.name,
      ...(t.function.description ? { description: t.function.description } : {}),
      ...(t.function.parameters ? { params: t.function.parameters } : {})
    }))
    if (choice === 'required') params.forceFunctionCall = true
    else if (choice && typeof choice === 'object') params.forceFunctionCall = choice.function.name
  }
  if (request.response_format?.type === 'json_schema' && !params.forceFunctionCall) params.jsonSchema = request.response_format.json_schema.schema
  // JSON mode: any object, through the same grammar a schema uses (an object of any keys and values).
  else if (request.response_format?.type === 'json_object' && !params.forceFunctionCall) params.jsonSchema = JSON_OBJECT
  return params
}

/**
 * "Local (built-in)": models run by the app's own engine (llama.cpp in its own process). The same
 * stream events as every runtime, through the same runner (cancellation, exactly one stop, speed
 * last); the speed's tokens/s is the engine's own measure, not chunk arrival in the core.
 */
export function createBuiltinRuntimeWith(engineOf: () => BuiltinEngine = builtinEngine): ProviderFactory {
  return (_credentials, context) => {
    const provider = context.providerId
    const runtime: ProviderRuntime = {
      id: provider,

      chat(request: ChatRequest, options?: CallOptions) {
        let engineSpeed: Speed | undefined
        const t = transformer(provider, request, (s) => (engineSpeed = s))
        const inner = runChatStream<Item>({
          provider,
          // Local generation has no network to retry and may pause while a model loads.
          options: { ...options, maxRetries: 0, idleTimeoutMs: options?.idleTimeoutMs ?? 0 },
          transformer: t,
          sawEndMarker: t.sawEndMarker,
          mapError: (error) => engineAppError(error, provider),
          open: async (signal) => {
            const params = chatParams(request, provider)
            const engine = engineOf()
            // Loading (and its refusal) happens here, before the first chunk, so it is an error of the request.
            await engine.load(request.model)
            return withCrash(engine.chat(request.model, params, signal))
          }
        })
        return (async function* (): AsyncGenerator<StreamEvent> {
          for await (const event of inner) {
            if (event.type === 'speed' && engineSpeed?.tps !== undefined) yield { type: 'speed', data: { ...event.data, tps: engineSpeed.tps } }
            else yield event
          }
        })()
      },

      async models(): Promise<ModelsResult> {
        const { models } = await engineOf().list()
        return { models: models.map((m) => ({ id: m.id, displayName: m.name, type: 'chat', enabled: true, functionCall: true, ...(m.contextSize ? { contextWindowTokens: m.contextSize } : {}) })) }
      },

      // llama.cpp embeds a model's own token ids as well as text.
      embeddingsTakeTokenIds: true,
      // Token biases are llama.cpp's own; LlamaChat gives no token probabilities back, so logprobs are refused.
      chatTakes: { logitBias: true },

      async embeddings(request: EmbeddingsRequest): Promise<EmbeddingsResult> {
        const inputs = request.tokenIds ?? (Array.isArray(request.input) ? request.input : [request.input])
        try {
          const result = await engineOf().embed(request.model, inputs)
          return { embeddings: result.embeddings, usage: { promptTokens: result.tokens, totalTokens: result.tokens } }
        } catch (error) {
          throw new AppErrorException(engineAppError(error, provider))
        }
      }
    }
    return runtime
  }
}

export const createBuiltinRuntime: ProviderFactory = createBuiltinRuntimeWith()
