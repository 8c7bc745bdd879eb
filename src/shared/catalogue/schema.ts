import { z } from 'zod'
import { imageModelParametersSchema } from '../image-params/schema'
import { pricingSchema } from '../pricing/schema'
import { MODEL_TYPES, type ModelType } from './types'

/** Zod form of CatalogueModel: checks our data files and, later, user-defined models. */
export const catalogueModelSchema = z
  .object({
    id: z.string().min(1),
    displayName: z.string().min(1),
    type: z.enum(MODEL_TYPES as [ModelType, ...ModelType[]]),
    enabled: z.boolean(),
    organization: z.string().optional(),
    family: z.string().optional(),
    generation: z.string().optional(),
    contextWindowTokens: z.number().int().min(0).optional(),
    maxOutput: z.number().int().positive().optional(),
    maxDimension: z.number().int().positive().optional(),
    releasedAt: z.string().optional(),
    knowledgeCutoff: z.string().optional(),
    abilities: z
      .object({
        functionCall: z.boolean().optional(),
        reasoning: z.boolean().optional(),
        vision: z.boolean().optional(),
        search: z.boolean().optional(),
        imageOutput: z.boolean().optional(),
        structuredOutput: z.boolean().optional(),
        audio: z.boolean().optional(),
        video: z.boolean().optional()
      })
      .strict(),
    settings: z
      .object({
        searchImpl: z.enum(['params', 'internal']).optional(),
        searchProvider: z.string().optional(),
        extendParams: z.array(z.string()).optional(),
        disabledParams: z.array(z.string()).optional()
      })
      .strict()
      .optional(),
    config: z.object({ deploymentName: z.string().optional() }).strict().optional(),
    pricing: pricingSchema.optional(),
    parameters: imageModelParametersSchema.optional(),
    description: z.string().optional()
  })
  .strict()
  .refine((m) => m.type !== 'image' || m.parameters !== undefined, { message: 'an image model needs parameters', path: ['parameters'] })

export const providerCatalogueFileSchema = z
  .object({ format: z.literal(1), providerId: z.string().min(1), models: z.array(catalogueModelSchema) })
  .strict()
  .refine((f) => new Set(f.models.map((m) => m.id)).size === f.models.length, { message: 'model ids must be unique within a provider' })

export const providerCardSchema = z
  .object({
    id: z.string().regex(/^[a-z0-9]+$/),
    name: z.string().min(1),
    url: z.string().url(),
    modelsUrl: z.string().url().optional(),
    apiKeyUrl: z.string().url().optional(),
    defaultBaseURL: z.string().url().optional(),
    sdkType: z.enum(['openai', 'anthropic', 'google', 'azure', 'azureai', 'bedrock', 'cloudflare', 'huggingface', 'ollama', 'router']).optional(),
    checkModel: z.string().min(1).optional(),
    proxyPlaceholder: z.string().min(1).optional(),
    showModelFetcher: z.boolean(),
    supportResponsesApi: z.boolean(),
    disableBrowserRequest: z.literal(true).optional(),
    showApiKey: z.literal(false).optional(),
    modelCount: z.number().int().min(0),
    modelTypes: z.partialRecord(z.enum(MODEL_TYPES as [ModelType, ...ModelType[]]), z.number().int().positive())
  })
  .strict()
