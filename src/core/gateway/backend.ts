import type { ChatRequest, EmbeddingsResult, NativeApi } from '../runtime/types'
import type { StreamEvent } from '../../shared/stream/events'

export interface GatewayTarget {
  providerId: string
  modelId: string
}

export interface GatewayModel {
  /** `provider/model`. */
  id: string
  providerId: string
  modelId: string
  type: string
}

export interface GatewayCallContext {
  signal: AbortSignal
  /** The key that made the call: its spend is logged under it (Usage, per key). */
  keyId: string
  /** Which API the call came in through, for the usage log. */
  api: 'chat.completions' | 'responses' | 'messages' | 'embeddings'
}

/**
 * What the gateway needs from the app: the models it may offer and one way to call them. The
 * app's implementation goes through the same runtime, keys, pricing and usage log as the chat.
 */
export interface GatewayBackend {
  models(): Promise<GatewayModel[]>
  /**
   * Throws a `GatewayError` when a client may not reach this target at all, before any work: a
   * built-in model is reached by the name the owner's lists give it, never by a host path.
   */
  admit(target: GatewayTarget): Promise<void>
  /**
   * The API whose own tools (Anthropic's server tools) the target's upstream takes unchanged, if
   * any: a client's server tools go on to it as `nativeTools`; elsewhere they are left out with a warning.
   */
  nativeApi?(target: GatewayTarget): NativeApi | undefined
  /** Events as every runtime emits them; never throws (errors are `error` events). Logs usage when it ends. */
  chat(target: GatewayTarget, request: ChatRequest, context: GatewayCallContext): AsyncIterable<StreamEvent>
  /** Texts, or token ids (one list per input) for a runtime that takes them (else a 400 naming the provider). */
  embed(target: GatewayTarget, input: string[] | { tokenIds: number[][] }, context: GatewayCallContext & { dimensions?: number }): Promise<EmbeddingsResult>
  /** What a key has spent, in USD, how many calls it made, and its input tokens (all, and read from the prompt cache). */
  spent(keyId: string): { usd: number; calls: number; inputTokens?: number; cachedInputTokens?: number }
}
