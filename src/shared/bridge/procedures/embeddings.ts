import { z } from 'zod'
import { call } from '../define'

export interface EmbeddingsOutput {
  /** One vector per input, in input order. */
  embeddings: number[][]
  /** Length of each vector. */
  dimensions: number
  usage?: { promptTokens?: number; totalTokens?: number }
}

const id = z.string().min(1).max(200)

export const embeddingProcedures = {
  /** Vectors for texts with a provider's embedding model (OpenAI-compatible, Ollama, Bedrock, …). */
  'embeddings.create': call<EmbeddingsOutput>()(
    z
      .object({
        providerId: id,
        modelId: id,
        input: z.union([z.string().min(1).max(1_000_000), z.array(z.string().min(1).max(1_000_000)).min(1).max(2048)]),
        dimensions: z.number().int().min(1).max(16_384).optional()
      })
      .strict()
  )
} as const
