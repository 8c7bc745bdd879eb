import { z } from 'zod'
import type { EmbeddingsResult } from '../../runtime/types'

export const embeddingsSchema = z.object({
  model: z.string().min(1),
  input: z.union([z.string(), z.array(z.string()).min(1).max(2048)]),
  dimensions: z.number().int().positive().optional(),
  // The openai SDK asks for base64 unless told otherwise, and decodes it itself.
  encoding_format: z.enum(['float', 'base64']).optional(),
  user: z.string().optional()
})

/** Little-endian float32 bytes, base64: what OpenAI sends for `encoding_format: "base64"`. */
export function embeddingToBase64(vector: readonly number[]): string {
  const buffer = Buffer.alloc(vector.length * 4)
  vector.forEach((v, i) => buffer.writeFloatLE(v, i * 4))
  return buffer.toString('base64')
}

export function embeddingsResponse(result: EmbeddingsResult, model: string, format: 'float' | 'base64'): Record<string, unknown> {
  const prompt = result.usage?.promptTokens ?? 0
  return {
    object: 'list',
    data: result.embeddings.map((embedding, index) => ({ object: 'embedding', index, embedding: format === 'base64' ? embeddingToBase64(embedding) : embedding })),
    model,
    usage: { prompt_tokens: prompt, total_tokens: result.usage?.totalTokens ?? prompt }
  }
}
