import type { AppError } from '../errors/app-error'
import type { ImageGeneration } from '../data/image-generation'

/**
 * Where one image task is, as the Images page shows it: waiting for a free slot, sent,
 * polling the provider (attempt n), storing the result, then done or failed with the reason.
 */
export type ImageTaskState =
  | { state: 'queued' }
  | { state: 'running' }
  | { state: 'polling'; attempt: number; status?: string }
  | { state: 'saving' }
  | { state: 'done' }
  | { state: 'failed'; error: AppError }
  | { state: 'cancelled' }

/** Events of one `images.generate` stream: the record first, then its states. */
export type ImageTaskEvent = { type: 'created'; data: ImageGeneration } | { type: 'state'; data: ImageTaskState & { generationId: string } }

/** A task still running, so a reloaded page can re-attach to its stream. */
export interface ActiveImageTask {
  streamId: string
  generationId: string
  providerId: string
  modelId: string
  prompt: string
  state: ImageTaskState
  createdAt: number
}

/** An image file as the renderer receives it (the data folder is never opened to the network). */
export interface ImageFileData {
  fileId: string
  name: string
  mimeType: string
  size: number
  dataUrl: string
}

/**
 * Reference images may name a stored file instead of carrying its bytes: `sbfile:<fileId>`.
 * The core resolves it before calling the provider, and keeps records small.
 */
export const FILE_REF_PREFIX = 'sbfile:'
export const fileRef = (fileId: string): string => `${FILE_REF_PREFIX}${fileId}`
export const fileIdOfRef = (value: string): string | undefined => (value.startsWith(FILE_REF_PREFIX) ? value.slice(FILE_REF_PREFIX.length) : undefined)

/** Tasks the core runs at the same time; more wait in the queue. */
export const MAX_CONCURRENT_IMAGE_TASKS = 4
