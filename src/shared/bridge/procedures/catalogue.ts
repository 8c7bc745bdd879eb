import { z } from 'zod'
import { call } from '../define'
import type { MergedModel, ModelType, ProviderCard } from '../../catalogue/types'

const providerId = z.string().min(1).max(100).regex(/^[a-z0-9][a-z0-9_-]*$/, 'must be a provider id such as openai or ollama')
const modelType = z.enum(['chat', 'image', 'embedding', 'tts', 'stt', 'realtime'] satisfies ModelType[])

/**
 * The built-in catalogue, read-only (for the model picker and the CLI). Outputs are plain
 * data straight from catalogue/; an unknown provider id fails with UnknownProvider.
 */
export const catalogueProcedures = {
  /** Every provider card (no model list is loaded). */
  'catalogue.providers': call<ProviderCard[]>()(z.object({}).strict()),
  /** One provider's builtin models as merged entries, optionally of one type. */
  'catalogue.models': call<MergedModel[]>()(z.object({ providerId, type: modelType.optional() }).strict()),
  /** The merged flat list of every provider (loads every file), optionally of one type. */
  'catalogue.merged': call<MergedModel[]>()(z.object({ type: modelType.optional() }).strict()),
  /** The lookup helper: one entry by id, provider first, then any provider; null when absent. */
  'catalogue.lookup': call<MergedModel | null>()(z.object({ modelId: z.string().min(1).max(300), providerId: providerId.optional() }).strict())
} as const
