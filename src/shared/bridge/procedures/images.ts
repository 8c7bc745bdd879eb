import { z } from 'zod'
import { call, stream } from '../define'
import type { ImageGeneration } from '../../data/image-generation'
import type { ImageModelParameters } from '../../image-params/types'
import type { ImageFileData, ImageTaskEvent } from '../../images/image-task'

const id = z.string().min(1).max(200)

/** Values of an image model's parameters; checked against the model's own schema in the core. */
const params = z
  .object({
    prompt: z.string().max(32_000),
    seed: z.number().int().min(0).max(2 ** 53).nullable().optional(),
    size: z.string().max(64).optional(),
    aspectRatio: z.string().max(32).optional(),
    resolution: z.string().max(32).optional(),
    width: z.number().optional(),
    height: z.number().optional(),
    cfg: z.number().optional(),
    steps: z.number().optional(),
    // Reference images: an http(s) URL, a data URL, or a stored file as sbfile:<id>.
    imageUrl: z.string().max(30_000_000).nullable().optional(),
    imageUrls: z.array(z.string().max(30_000_000)).max(16).optional()
  })
  .catchall(z.union([z.string().max(200), z.number(), z.boolean(), z.null()]))

export const imageProcedures = {
  /** Generates one image; the task is owned by the core (closing the page does not stop it). */
  'images.generate': stream<ImageTaskEvent, ImageGeneration>()(z.object({ providerId: id, modelId: id, params }).strict()),
  /** Cancels a running task. */
  'images.cancel': call<boolean>()(z.object({ generationId: id }).strict()),
  /** The parameter schema of an image model (catalogue, or a minimal one for models it does not know). */
  'images.modelParameters': call<{ parameters: ImageModelParameters; known: boolean }>()(z.object({ providerId: id, modelId: id }).strict()),
  /** A stored image as a data URL. */
  'images.file': call<ImageFileData>()(z.object({ fileId: id }).strict()),
  /** Deletes a generation and the files no other generation uses. */
  'images.delete': call<{ deleted: boolean; filesRemoved: number }>()(z.object({ id }).strict())
} as const
