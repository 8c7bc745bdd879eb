import { z } from 'zod'
import { endpointUrlSchema } from './endpoint-url'
import { knowledgeExportSchema } from '../knowledge/export-schema'

/**
 * The export file: versioned JSON of agents, conversations, topics, messages and settings.
 * It never holds API keys. A file whose `version` is above ours was written by a newer app.
 */
export const EXPORT_FORMAT = 'switchboard-export'
export const EXPORT_VERSION = 1

/** product.md §8 "File incompatible". */
export const FILE_INCOMPATIBLE_MESSAGE = 'This file was exported by a newer version of Switchboard. Upgrade Switchboard to import it.'
/** product.md §8 "Import failed, with reason". */
export const importFailedMessage = (reason: string) => `Import failed: ${reason}`

export const idSchema = z.string().min(1).max(200)
const time = z.number().int().nonnegative()
export const jsonSchema = z.json()
export const jsonObjectSchema = z.record(z.string(), jsonSchema)

export const modelParametersSchema = z
  .object({
    temperature: z.number().optional(),
    topP: z.number().optional(),
    maxOutputTokens: z.number().optional(),
    presencePenalty: z.number().optional(),
    frequencyPenalty: z.number().optional(),
    reasoningEffort: z.string().optional(),
    thinkingBudget: z.number().optional(),
    thinking: z.boolean().optional(),
    contextCaching: z.boolean().optional(),
    search: z.enum(['off', 'on', 'auto']).optional(),
    historyCount: z.number().int().min(0).max(100_000).optional(),
    autoCompress: z.boolean().optional(),
    compressAt: z.number().min(0.1).max(1).optional(),
    artifacts: z.boolean().optional(),
    extra: jsonObjectSchema.optional()
  })
  .strict()

export const agentSchema = z
  .object({
    id: idSchema,
    name: z.string(),
    avatar: z.string().optional(),
    description: z.string().optional(),
    systemPrompt: z.string(),
    providerId: z.string().optional(),
    modelId: z.string().optional(),
    parameters: modelParametersSchema,
    tags: z.array(z.string()),
    createdAt: time,
    updatedAt: time
  })
  .strict()

export const conversationSchema = z
  .object({
    id: idSchema,
    agentId: idSchema,
    title: z.string(),
    providerId: z.string().optional(),
    modelId: z.string().optional(),
    parameters: modelParametersSchema.optional(),
    pinned: z.boolean(),
    createdAt: time,
    updatedAt: time
  })
  .strict()

export const topicSchema = z.object({ id: idSchema, conversationId: idSchema, title: z.string(), createdAt: time, updatedAt: time }).strict()

export const contentPartSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }).strict(),
  z.object({ type: z.literal('image_url'), imageUrl: z.object({ url: z.string(), detail: z.enum(['auto', 'low', 'high']).optional() }).strict() }).strict(),
  z.object({ type: z.literal('image_file'), fileId: idSchema, mimeType: z.string(), width: z.number().optional(), height: z.number().optional() }).strict()
])

const appError = z
  .object({ errorType: z.string(), message: z.string(), status: z.number().optional(), provider: z.string().optional(), detail: jsonSchema.optional() })
  .strict()

export const messageSchema = z
  .object({
    id: idSchema,
    conversationId: idSchema,
    topicId: idSchema.optional(),
    parentId: idSchema.optional(),
    role: z.enum(['system', 'user', 'assistant', 'tool', 'function']),
    content: z.array(contentPartSchema),
    reasoning: z.object({ text: z.string(), signature: z.string().optional(), durationMs: z.number().nonnegative().optional() }).strict().optional(),
    toolCalls: z
      .array(z.object({ id: z.string(), type: z.string(), function: z.object({ name: z.string(), arguments: z.string() }), index: z.number().optional() }))
      .optional(),
    toolResults: z.array(z.object({ toolCallId: z.string(), content: z.string(), isError: z.boolean().optional() }).strict()).optional(),
    files: z.array(idSchema).optional(),
    grounding: jsonObjectSchema.optional(),
    providerId: z.string().optional(),
    modelId: z.string().optional(),
    usage: z.record(z.string(), z.number()).optional(),
    cost: jsonObjectSchema.optional(),
    speed: z.object({ tps: z.number().optional(), ttft: z.number().optional() }).strict().optional(),
    error: appError.optional(),
    // Chosen options, history summary, translations (src/shared/chat/message-meta.ts).
    meta: jsonObjectSchema.optional(),
    status: z.enum(['streaming', 'complete', 'interrupted', 'error']),
    createdAt: time,
    updatedAt: time
  })
  .strict()

export const providerExportSchema = z
  .object({
    providerId: z.string().min(1).max(100),
    enabled: z.boolean(),
    // The same rule as Settings: an imported file must not point keys at file:, javascript: …
    baseUrl: endpointUrlSchema.optional(),
    proxyUrl: endpointUrlSchema.optional(),
    modelOverrides: z.record(z.string(), z.object({ enabled: z.boolean() }).strict())
  })
  .strict()

export const exportFileSchema = z
  .object({
    format: z.literal(EXPORT_FORMAT),
    version: z.number().int().positive(),
    appVersion: z.string(),
    exportedAt: time,
    data: z
      .object({
        agents: z.array(agentSchema),
        conversations: z.array(conversationSchema),
        topics: z.array(topicSchema),
        messages: z.array(messageSchema),
        settings: jsonObjectSchema,
        /** Provider configuration without keys (keys stay in the keychain) and without fetched model lists (fetched again). */
        providers: z.array(providerExportSchema).optional(),
        /** Knowledge bases with their files; indexed again on import. */
        knowledgeBases: z.array(knowledgeExportSchema).optional()
      })
      .strict()
  })
  .strict()

export type ExportFile = z.infer<typeof exportFileSchema>

export interface ImportCounts {
  agents: number
  conversations: number
  topics: number
  messages: number
  settings: number
  providers: number
}

/** A provider endpoint an import would set (only providers not configured yet: existing settings are kept). */
export interface ImportedEndpoint {
  providerId: string
  baseUrl?: string
  proxyUrl?: string
}

/** What an import added (ids already present are kept as they are and counted as skipped). */
export interface ImportReport {
  added: ImportCounts
  skipped: ImportCounts
  /**
   * Endpoints in the file. Keys you save later are sent there, so they are applied only when
   * the import was asked to (`applyEndpoints`) after the user saw this list.
   */
  endpoints: ImportedEndpoint[]
  endpointsApplied: boolean
  /** True for a preview: the counts of a real import, but nothing was changed. */
  dryRun?: boolean
  /** Settings of the file left out (unknown, malformed, or not allowed from this client), with why. */
  refusedSettings?: RefusedSetting[]
  /** Rows whose id came earlier in the same file: the first one is imported, these are not. */
  duplicates?: { kind: keyof ImportCounts; id: string; index: number }[]
}

/** A setting an import did not write as it came; `key` may name a part (`toolServers.0`). */
export interface RefusedSetting {
  key: string
  reason: string
}
