import type { AppError } from '../errors/app-error'

/** Image model ids the Qwen image service's async text-to-image task accepts (providers.md §5). */
export const QWEN_IMAGE_MODEL_PREFIXES = ['wan2.2-t2i', 'wanx2.1-t2i', 'wanx2.0-t2i', 'wanx-v1', 'flux', 'stable-diffusion'] as const

/**
 * Which DashScope endpoint serves a Qwen image model:
 * - `text2image`: the async text-to-image task of providers.md §4/§7 (the spec's prefixes, and
 *   wan2.5-t2i-preview, which DashScope serves on the same task);
 * - `image2image`: the async image-to-image task (wan2.5-i2i-preview: prompt plus reference images);
 * - `multimodal`: the synchronous multimodal-generation API (Qwen Image 1/2, the edit models,
 *   Z-Image): one user message of `{image}` parts and a `{text}` part, the image in the reply;
 * - `image-generation`: the async image-generation task in the same message format (Wan 2.6/2.7,
 *   Kling on DashScope), polled like the text-to-image task.
 */
export type QwenImageRoute = 'text2image' | 'image2image' | 'multimodal' | 'image-generation'

const ROUTES: ReadonlyArray<readonly [RegExp, QwenImageRoute]> = [
  [new RegExp(`^(${QWEN_IMAGE_MODEL_PREFIXES.map((p) => p.replace(/\./g, '\\.')).join('|')})`), 'text2image'],
  [/^wan2\.5-t2i/, 'text2image'],
  [/^wan2\.5-i2i/, 'image2image'],
  [/^(qwen-image|z-image)/i, 'multimodal'],
  [/^(wan2\.[67]-|kling\/)/, 'image-generation']
]

export function qwenImageRoute(modelId: string): QwenImageRoute | undefined {
  return ROUTES.find(([pattern]) => pattern.test(modelId))?.[1]
}

export const isQwenImageModel = (modelId: string): boolean => qwenImageRoute(modelId) !== undefined

/** undefined when some endpoint serves the id; otherwise the spec's 'Unsupported model' error. */
export function checkQwenImageModel(modelId: string): AppError | undefined {
  if (isQwenImageModel(modelId)) return undefined
  return {
    errorType: 'ModelNotFound',
    message: 'Unsupported model',
    status: 404,
    provider: 'qwen',
    detail: { model: modelId, acceptedPrefixes: [...QWEN_IMAGE_MODEL_PREFIXES] }
  }
}
