import type { AppError } from '../errors/app-error'
import type { CostBreakdown } from './cost'
import type { JsonObject } from './json'

/** The spec's processing states (product.md §4). */
export type ImageGenerationStatus = 'Pending' | 'Processing' | 'Success' | 'Error'

export interface ImageResult {
  fileId: string
  width: number
  height: number
  /** The seed the provider reports having used (set even when the request left it random). */
  seed?: number
}

export interface ImageGeneration {
  id: string
  prompt: string
  /** The image model parameters sent (size, aspectRatio, seed, steps, cfg…). */
  parameters: JsonObject
  providerId: string
  modelId: string
  status: ImageGenerationStatus
  results: ImageResult[]
  cost?: CostBreakdown
  error?: AppError
  createdAt: number
  updatedAt: number
}

export type ImageGenerationInput = Pick<ImageGeneration, 'prompt' | 'providerId' | 'modelId'> &
  Partial<Pick<ImageGeneration, 'id' | 'parameters' | 'status'>>

export type ImageGenerationPatch = Partial<Pick<ImageGeneration, 'status' | 'results' | 'cost' | 'error'>>
