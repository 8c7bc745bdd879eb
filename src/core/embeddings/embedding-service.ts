import { AppErrorException } from '../../shared/errors/app-error'
import type { CallOptions, ProviderRuntime } from '../runtime/types'

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
 */
export class EmbeddingService {
  constructor(private readonly deps: { runtimeFor(providerId: string): Promise<ProviderRuntime> }) {}

  async create(
    input: { providerId: string; modelId: string; input: string | string[]; dimensions?: number },
    options?: CallOptions
  ): Promise<EmbeddingsOutput> {
    const runtime = await this.deps.runtimeFor(input.providerId)
    if (!runtime.embeddings)
      throw new AppErrorException({ errorType: 'CapabilityNotSupported', status: 400, provider: input.providerId, message: `${input.providerId} does not offer embeddings.` })
    const texts = typeof input.input === 'string' ? [input.input] : input.input
    const result = await runtime.embeddings({ model: input.modelId, input: texts, ...(input.dimensions ? { dimensions: input.dimensions } : {}) }, options)
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
