import { AppErrorException } from '../../../shared/errors/app-error'
import type { CallOptions, CreateImageRequest, CreateImageResult } from '../types'
import { joinUrl, requestJson, taskError, type ImageEndpoint } from './image-http'
import { inputImages } from './openai-images'

/** providers.md §8: SiliconCloud's 403 is about the key's balance or real-name verification. */
const FORBIDDEN = '请检查 API Key 余额是否充足，或者是否在未实名的情况下使用了需要实名的模型'

/**
 * SiliconCloud's OpenAI-style images endpoint speaks its own body: image_size, batch_size,
 * num_inference_steps, guidance_scale, and reference images as image, image2, image3;
 * it answers with `images` (older servers also `data`).
 */
export async function createSiliconCloudImage(endpoint: ImageEndpoint, request: CreateImageRequest, options: CallOptions = {}): Promise<CreateImageResult> {
  const { params } = request
  const body: Record<string, unknown> = { model: request.model, prompt: params.prompt, batch_size: 1 }
  if (params.size && params.size !== 'auto') body['image_size'] = params.size
  else if (params.width && params.height) body['image_size'] = `${params.width}x${params.height}`
  if (typeof params.seed === 'number') body['seed'] = params.seed
  if (params.steps) body['num_inference_steps'] = params.steps
  if (params.cfg !== undefined) body['guidance_scale'] = params.cfg
  inputImages(params).slice(0, 3).forEach((url, i) => (body[i === 0 ? 'image' : `image${i + 1}`] = url))
  let response: Record<string, unknown>
  try {
    response = await requestJson(endpoint, 'create', joinUrl(endpoint.baseURL, 'images/generations'), { method: 'POST', headers: { authorization: `Bearer ${endpoint.apiKey}` }, body }, options.signal)
  } catch (error) {
    if (error instanceof AppErrorException && error.error.status === 403) throw new AppErrorException({ ...error.error, errorType: 'ProviderBizError', message: FORBIDDEN })
    throw error
  }
  const list = (Array.isArray(response['images']) ? response['images'] : response['data']) as Array<{ url?: string; b64_json?: string }> | undefined
  const first = Array.isArray(list) ? list[0] : undefined
  const seed = typeof response['seed'] === 'number' ? { seed: response['seed'] } : {}
  if (first?.url) return { imageUrl: first.url, ...seed }
  if (first?.b64_json) return { imageUrl: `data:image/png;base64,${first.b64_json}`, ...seed }
  throw taskError('Invalid image response: missing or empty data array', endpoint.provider)
}
