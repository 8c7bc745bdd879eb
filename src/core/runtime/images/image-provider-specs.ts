import { nativeSpec } from '../provider-spec'
import { createBflRuntime, createFalRuntime } from './image-runtimes'

/** Black Forest Labs: image generation only. */
export const bflSpec = nativeSpec({ id: 'bfl', factory: createBflRuntime })
/** Fal: image generation only (queue API). */
export const falSpec = nativeSpec({ id: 'fal', factory: createFalRuntime })
