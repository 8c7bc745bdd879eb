import { AppErrorException } from '../../shared/errors/app-error'
import type { UsageScene } from '../../shared/data/usage-log'
import type { CallOptions } from '../runtime/types'
import type { ModelCaller } from '../caller/model-caller'

export interface EmbeddingsOutput {
  /** One vector per input, in input order. */
  embeddings: number[][]
  /** Length of each vector. */
  dimensions: number
  usage?: { promptTokens?: number; totalTokens?: number }
}

/**
 * Used inside the core (the knowledge base), not over the bridge: no screen asks for vectors.
 * Embeddings through whichever runtime the provider has: OpenAI-compatible (float vectors),
 * Ollama (one call per input), Bedrock Titan, Google, Azure. The base for the knowledge base.
 * Each call goes through the one caller: priced per input token and in the usage log under its scene.
 */
export class EmbeddingService {
  constructor(private readonly deps: { caller: Pick<ModelCaller, 'embed'> }) {}

  async create(
    input: { providerId: string; modelId: string; input: string | string[]; dimensions?: number; scene: UsageScene },
    options: Omit<CallOptions, 'signal'> & { signal?: AbortSignal | undefined } = {}
  ): Promise<EmbeddingsOutput> {
    const texts = typeof input.input === 'string' ? [input.input] : input.input
    const { signal, ...call } = options
    const result = await this.deps.caller.embed({
      target: { providerId: input.providerId, modelId: input.modelId },
      scene: input.scene,
      input: texts,
      ...(input.dimensions ? { dimensions: input.dimensions } : {}),
      ...(signal ? { signal } : {}),
      call
    })
    return embeddingsOutput(result.embeddings, texts.length, input.providerId, result.usage)
  }
}

/** Checks a runtime's answer (one vector per input, all the same length) and names its dimensions. */
export function embeddingsOutput(embeddings: number[][], expected: number, providerId: string, usage?: EmbeddingsOutput['usage']): EmbeddingsOutput {
  const dimensions = embeddings[0]?.length ?? 0
  if (embeddings.length !== expected || dimensions === 0 || embeddings.some((v) => v.length !== dimensions))
    throw new AppErrorException({
      errorType: 'UpstreamMalformedResponse',
      status: 471,
      provider: providerId,
      message: `The provider returned ${embeddings.length} vector(s) for ${expected} input(s)${dimensions === 0 ? ', empty' : ''}; expected one per input, all of one length.`
    })
  return { embeddings, dimensions, ...(usage ? { usage } : {}) }
}
