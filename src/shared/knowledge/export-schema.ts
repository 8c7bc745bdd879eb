import { z } from 'zod'

/**
 * A knowledge base in an export file: its settings, its files' bytes and what it is attached
 * to. Chunks and vectors are not carried: the importing app indexes the files again.
 */
export const knowledgeExportSchema = z
  .object({
    id: z.string().regex(/^[0-9a-z]{1,64}$/),
    name: z.string().min(1).max(200),
    description: z.string().max(2000),
    providerId: z.string().min(1).max(200),
    modelId: z.string().min(1).max(200),
    chunkSize: z.number().int().min(100).max(20_000),
    chunkOverlap: z.number().int().min(0).max(5_000),
    files: z.array(z.object({ name: z.string().min(1).max(500), source: z.string().max(4096), dataBase64: z.string() }).strict()),
    attachedTo: z.array(z.object({ kind: z.enum(['agent', 'conversation']), id: z.string().min(1).max(200) }).strict())
  })
  .strict()

export type KnowledgeExport = z.infer<typeof knowledgeExportSchema>
