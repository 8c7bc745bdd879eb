/**
 * Image model parameters (product.md §3, providers.md §3): each parameter has a default and
 * optionally enum / min / max / step. The catalogue stores them per image model under
 * `parameters`; fields beyond the spec's list (resolution, watermark, promptExtend…) are
 * kept so that the UI can show them.
 */
export interface EnumParam<T extends string = string> {
  default: T
  enum: T[]
}

export interface RangeParam {
  default: number
  min: number
  max: number
  step?: number
}

export interface ImageUrlsParam {
  default: string[]
  maxCount?: number
  /** Bytes. */
  maxFileSize?: number
}

export interface ImageModelParameters {
  prompt: { default: string }
  seed?: { default: number | null }
  imageUrl?: { default: string | null; maxFileSize?: number }
  imageUrls?: ImageUrlsParam
  size?: EnumParam
  aspectRatio?: EnumParam
  resolution?: EnumParam
  width?: RangeParam
  height?: RangeParam
  cfg?: RangeParam
  steps?: RangeParam
  /** Extra switches some providers offer (kept from the catalogue as they are). */
  [extra: string]: unknown
}

/** The values a user (or the CLI) sends with an image request. */
export interface ImageParamValues {
  prompt?: string
  seed?: number | null
  imageUrl?: string | null
  imageUrls?: string[]
  size?: string
  aspectRatio?: string
  resolution?: string
  width?: number
  height?: number
  cfg?: number
  steps?: number
  [extra: string]: unknown
}
