import type { AppError } from '../errors/app-error'

/** Image model ids the Qwen image service accepts (providers.md §5). */
export const QWEN_IMAGE_MODEL_PREFIXES = ['wan2.2-t2i', 'wanx2.1-t2i', 'wanx2.0-t2i', 'wanx-v1', 'flux', 'stable-diffusion'] as const

export const isQwenImageModel = (modelId: string): boolean => QWEN_IMAGE_MODEL_PREFIXES.some((p) => modelId.startsWith(p))

/** undefined when the id is accepted; otherwise the spec's 'Unsupported model' error. */
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
