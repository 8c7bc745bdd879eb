import { z } from 'zod'
import type { EmbeddingsResult } from '../../runtime/types'

const texts = z.union([z.string(), z.array(z.string()).min(1).max(2048)])
// Token ids (numbers, or lists of them) reach no runtime here: refused by name, not as a shape error.
const tokenIds = z.array(z.union([z.number(), z.array(z.number())])).min(1)

export const embeddingsSchema = z
  .object({
    model: z.string().min(1),
    input: z.union([texts, tokenIds]),
    dimensions: z.number().int().positive().optional(),
    // The openai SDK asks for base64 unless told otherwise, and decodes it itself.
    encoding_format: z.enum(['float', 'base64']).optional(),
    user: z.string().optional()
  })
  .superRefine((body, ctx) => {
    const input: unknown[] = Array.isArray(body.input) ? body.input : [body.input]
    if (input.some((i) => typeof i !== 'string')) {
      ctx.addIssue({ code: 'custom', path: ['input'], message: 'token-id input is not offered through Switchboard: the providers behind it take text. Send the text itself.' })
    } else if (input.some((i) => i === '')) {
      // OpenAI refuses an empty input too: it has no embedding.
      ctx.addIssue({ code: 'custom', path: ['input'], message: 'an input must not be empty' })
    }
  })
  .transform((body) => body as Omit<typeof body, 'input'> & { input: z.infer<typeof texts> })

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
