import { requireApiKey } from '../credentials'
import type { ProviderFactory, ProviderRuntime } from '../types'
import { BFL_DEFAULT_BASE_URL, createBflImage } from './bfl-polling'
import { createFalImage, FAL_DEFAULT_BASE_URL } from './fal-image'
import type { ImageEndpoint } from './image-http'

/** Image-only providers: no chat, just createImage over their own wire (native adapters). */
function imageOnly(defaultBaseURL: string, create: (endpoint: ImageEndpoint, ...rest: Parameters<NonNullable<ProviderRuntime['createImage']>>) => ReturnType<NonNullable<ProviderRuntime['createImage']>>): ProviderFactory {
  return (credentials, context) => {
    const provider = context.providerId
    const apiKey = requireApiKey(credentials, provider)
    const baseURL = credentials.baseURL?.trim() || defaultBaseURL
    return {
      id: provider,
      createImage: (request, options = {}) => create({ provider, baseURL, apiKey, fetch: options.fetch ?? globalThis.fetch }, request, options)
    }
  }
}

export const createBflRuntime: ProviderFactory = imageOnly(BFL_DEFAULT_BASE_URL, createBflImage)
export const createFalRuntime: ProviderFactory = imageOnly(FAL_DEFAULT_BASE_URL, createFalImage)
