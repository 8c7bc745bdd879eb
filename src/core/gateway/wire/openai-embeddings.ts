import { z } from 'zod'
import type { EmbeddingsResult } from '../../runtime/types'

const texts = z.union([z.string(), z.array(z.string()).min(1).max(2048)])
// Token ids, as OpenAI and llama.cpp's server take them: one list of a model's own ids, or many.
const tokenId = z.number().int().nonnegative()
const tokenIds = z.union([z.array(tokenId).min(1), z.array(z.array(tokenId)).min(1).max(2048)])

export const embeddingsSchema = z
  .object({
    model: z.string().min(1),
    input: z.unknown(),
    dimensions: z.number().int().positive().optional(),
    // The openai SDK asks for base64 unless told otherwise, and decodes it itself.
    encoding_format: z.enum(['float', 'base64']).optional(),
    user: z.string().optional()
  })
  .transform((body, ctx) => {
    const input = parseInput(body.input)
    if ('refused' in input) {
      ctx.addIssue({ code: 'custom', path: ['input'], message: input.refused })
      return z.NEVER
    }
    return { ...body, input: input.ok }
  })

type Parsed = { ok: z.infer<typeof texts> | z.infer<typeof tokenIds> } | { refused: string }

/** The input as texts or token ids, or the words that say what is wrong with it. */
function parseInput(input: unknown): Parsed {
  const asTexts = texts.safeParse(input)
  if (asTexts.success) {
    // OpenAI refuses an empty input too: it has no embedding.
    return (Array.isArray(asTexts.data) ? asTexts.data : [asTexts.data]).some((i) => i === '') ? { refused: 'an input must not be empty' } : { ok: asTexts.data }
  }
  const asTokens = tokenIds.safeParse(input)
  if (asTokens.success) return (asTokens.data as unknown[]).some((list) => Array.isArray(list) && list.length === 0) ? { refused: 'a list of token ids must not be empty' } : { ok: asTokens.data }
  if (Array.isArray(input) && input.length === 0) return { refused: 'input must not be an empty list' }
  if (Array.isArray(input) && input.some((i) => typeof i === 'string') && input.some((i) => typeof i !== 'string'))
    return { refused: 'input mixes texts and token ids: send one kind (a string, a list of strings, a list of token ids, or a list of such lists)' }
  return { refused: 'input must be a string, a list of strings (at most 2,048), a list of token ids (whole numbers from 0), or a list of such lists' }
}

/** What the caller embeds: texts, or token-id lists. */
export function embeddingInputs(input: z.infer<typeof texts> | z.infer<typeof tokenIds>): string[] | { tokenIds: number[][] } {
  if (typeof input === 'string') return [input]
  if (input.every((i): i is string => typeof i === 'string')) return input
  return { tokenIds: input.every((i): i is number => typeof i === 'number') ? [input] : (input as number[][]) }
}

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
