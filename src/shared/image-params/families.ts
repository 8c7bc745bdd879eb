/**
 * Image sizes and bounds by model family (product.md §5, providers.md §5). The catalogue
 * carries each model's own parameters (the family sizes and bounds of providers.md §5 are
 * checked against it in tests/unit/catalogue/image-params.test.ts); these tables are for models
 * the catalogue does not know.
 */
export const MODEL_IMAGE_SIZES: Readonly<Record<string, readonly string[]>> = {
  'gpt-image-1': ['auto', '1024x1024', '1536x1024', '1024x1536'],
  'dall-e-3': ['1024x1024', '1792x1024', '1024x1792'],
  'dall-e-2': ['256x256', '512x512', '1024x1024']
}

/** Sizes for an id of a family above (exact id, or the family name followed by '-' / ':'). */
export function imageSizesForModel(modelId: string): readonly string[] | undefined {
  const id = modelId.toLowerCase()
  for (const [family, sizes] of Object.entries(MODEL_IMAGE_SIZES)) {
    if (id === family || id.startsWith(`${family}-`) || id.startsWith(`${family}:`)) return sizes
  }
  return undefined
}

/**
 * Output quality by family, for the schema where the catalogue leaves it out (the
 * panel shows every parameter the model takes; OpenAI's image API takes `quality`).
 */
export const MODEL_IMAGE_QUALITIES: ReadonlyArray<{ match: RegExp; values: readonly string[] }> = [
  { match: /^gpt-image-/i, values: ['auto', 'low', 'medium', 'high'] },
  { match: /^dall-e-3(?:$|[-:])/i, values: ['standard', 'hd'] }
]

/** The model's parameters with its family's `quality` added when the schema lacks one. */
export function withFamilyParameters<P extends Record<string, unknown>>(modelId: string, parameters: P): P {
  if (parameters['quality']) return parameters
  const family = MODEL_IMAGE_QUALITIES.find((f) => f.match.test(modelId))
  return family ? { ...parameters, quality: { default: family.values[0]!, enum: [...family.values] } } : parameters
}

/** Input images one request may carry at the provider with that limit (BFL Kontext: 4). */
export const PROVIDER_MAX_INPUT_IMAGES: Readonly<Record<string, number>> = { bfl: 4 }

/** Default image size for providers that take width*height text (Qwen): one image per task. */
export const DEFAULT_IMAGE_SIZE = '1024*1024'

/** "1024x768" or "1024*768" → numbers; undefined otherwise ("auto"). */
export function parseImageSize(size: string): { width: number; height: number } | undefined {
  const m = /^\s*(\d+)\s*[x*×]\s*(\d+)\s*$/i.exec(size)
  return m ? { width: Number(m[1]), height: Number(m[2]) } : undefined
}
