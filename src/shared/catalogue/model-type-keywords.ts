import type { ModelType } from './types'

/**
 * Type from the id when neither the fetched entry nor the catalogue says (product.md §4).
 * Lower-case keywords are matched against the lower-cased id; the upper-case ones
 * (DESCRIBE, UPSCALE and the V3 / V_2 / V_1 prefixes of Midjourney-style action models)
 * only as written, since they name actions, not families.
 */
const IMAGE_SUBSTRINGS = ['dall-e', 'midjourney', 'stable-diffusion', 'sd', 'flux', 'imagen', 'firefly', 'cogview', 'wanxiang', '-image']
const IMAGE_SUBSTRINGS_EXACT = ['DESCRIBE', 'UPSCALE']
const IMAGE_PREFIXES_EXACT = ['V3', 'V_2', 'V_1']

export function isImageModelId(modelId: string): boolean {
  const lower = modelId.toLowerCase()
  return (
    IMAGE_SUBSTRINGS.some((k) => lower.includes(k)) ||
    IMAGE_SUBSTRINGS_EXACT.some((k) => modelId.includes(k)) ||
    IMAGE_PREFIXES_EXACT.some((k) => modelId.startsWith(k))
  )
}

export const typeFromModelId = (modelId: string): ModelType => (isImageModelId(modelId) ? 'image' : 'chat')
