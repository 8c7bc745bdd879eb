/**
 * Image sizes and bounds by model family (product.md §5, providers.md §5). The catalogue
 * carries each model's own parameters; these tables are what the spec states per family,
 * used for models the catalogue does not know and to check the catalogue itself.
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

export const FLUX_SIZES = ['512x1024', '768x512', '768x1024', '1024x576', '576x1024', '1024x1024'] as const
export const FLUX_DEFAULT_SIZE = '1024x1024'
export const QWEN_IMAGE_SIZES = ['1664*928', '1472*1140', '1328*1328', '1140*1472', '928*1664'] as const
export const QWEN_IMAGE_DEFAULT_SIZE = '1328*1328'
export const STEP_IMAGE_SIZES = ['256x256', '512x512', '768x768', '1024x1024', '1280x800', '800x1280'] as const
export const STEP_EDIT_IMAGE_SIZES = ['512x512', '768x768', '1024x1024'] as const
export const KOLORS_IMAGE_SIZES = ['1024x1024', '960x1280', '768x1024', '720x1440', '720x1280'] as const

export interface Bounds {
  min: number
  max: number
  step?: number
  default?: number
}

export const FAMILY_BOUNDS = {
  /** BFL FLUX pro/dev width and height. */
  bflDimension: { min: 256, max: 1440, step: 32 },
  qwenWanxiangDimension: { min: 512, max: 1440, step: 1, default: 1024 },
  stableDiffusionDimension: { min: 512, max: 1024, step: 128 },
  stableDiffusionSteps: { min: 1, max: 500 },
  stepsGeneral: { min: 1, max: 50 },
  fluxSchnellSteps: { min: 1, max: 12, default: 4 },
  fluxDevSteps: { min: 1, max: 50, default: 50 },
  fluxMergedSteps: { min: 1, max: 30, default: 30 },
  stepSeriesSteps: { min: 1, max: 100, default: 50 },
  stepEditSteps: { min: 1, max: 100, default: 28 },
  /** "Image steps (another catalogue)": 1 to 50, default 25. */
  stepsDefault25: { min: 1, max: 50, default: 25 },
  cfgNarrow: { min: 1.5, max: 5 },
  cfgWide: { min: 0, max: 20 }
} as const satisfies Record<string, Bounds>

/** Input images one request may carry at the provider with that limit (BFL Kontext: 4). */
export const PROVIDER_MAX_INPUT_IMAGES: Readonly<Record<string, number>> = { bfl: 4 }

/** Default image size for providers that take width*height text (Qwen): one image per task. */
export const DEFAULT_IMAGE_SIZE = '1024*1024'

/** "1024x768" or "1024*768" → numbers; undefined otherwise ("auto"). */
export function parseImageSize(size: string): { width: number; height: number } | undefined {
  const m = /^\s*(\d+)\s*[x*×]\s*(\d+)\s*$/i.exec(size)
  return m ? { width: Number(m[1]), height: Number(m[2]) } : undefined
}
