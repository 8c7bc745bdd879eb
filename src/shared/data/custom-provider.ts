import { z } from 'zod'
import { endpointUrlSchema } from './endpoint-url'

/**
 * A provider the user adds: any OpenAI-compatible server (a proxy, a company gateway, a local
 * server the catalogue does not know). It runs through the same OpenAI-compatible adapter as
 * the catalogue's providers; its definition lives in the settings table (so export and import
 * carry it), its key in the keychain under its provider id like any other.
 */
export interface CustomProvider {
  /** The slug the user sees in the CLI (`custom:<slug>/<model>`); the provider id is `custom-<slug>`. */
  slug: string
  name: string
  baseUrl: string
  /** One or two letters drawn in place of a logo; absent: the name's initials. */
  monogram?: string
  /** Models typed by hand, and the abilities the user set for any model (typed or fetched). */
  models: CustomProviderModel[]
}

export interface CustomProviderModel {
  id: string
  displayName?: string
  contextWindowTokens?: number
  vision?: boolean
  functionCall?: boolean
  reasoning?: boolean
}

/** Custom provider ids are `custom-<slug>`: no catalogue id has that form, and it fits every provider-id rule. */
export const CUSTOM_PROVIDER_PREFIX = 'custom-'
export const isCustomProviderId = (providerId: string): boolean => providerId.startsWith(CUSTOM_PROVIDER_PREFIX)
export const customProviderId = (slug: string): string => `${CUSTOM_PROVIDER_PREFIX}${slug}`
export const customSlugOf = (providerId: string): string => providerId.slice(CUSTOM_PROVIDER_PREFIX.length)

/** A slug from a display name ("My Gateway!" → "my-gateway"); empty when the name has no letters or digits. */
export const slugFromName = (name: string): string =>
  name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)

export const customSlugSchema = z
  .string()
  .min(1)
  .max(40)
  .regex(/^[a-z0-9][a-z0-9-]*$/, 'must be lower-case letters, digits and dashes, e.g. my-gateway')

export const customProviderModelSchema = z.strictObject({
  id: z.string().trim().min(1).max(300),
  displayName: z.string().trim().min(1).max(200).optional(),
  contextWindowTokens: z.number().int().min(1).max(100_000_000).optional(),
  vision: z.boolean().optional(),
  functionCall: z.boolean().optional(),
  reasoning: z.boolean().optional()
})

export const customProviderSchema = z.strictObject({
  slug: customSlugSchema,
  name: z.string().trim().min(1, 'the name is empty').max(100),
  baseUrl: endpointUrlSchema,
  monogram: z.string().trim().min(1).max(2).optional(),
  models: z.array(customProviderModelSchema).max(2000)
})

/** The stored list: slugs are unique (the provider id is made from them). */
export const customProvidersSchema = z
  .array(customProviderSchema)
  .max(200)
  .refine((list) => new Set(list.map((p) => p.slug)).size === list.length, 'two custom providers have the same id')
