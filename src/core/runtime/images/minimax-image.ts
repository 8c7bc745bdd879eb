import type { CallOptions, CreateImageRequest, CreateImageResult } from '../types'
import { joinUrl, reasonOf, requestJson, taskError, type ImageEndpoint } from './image-http'
import { inputImages } from './openai-images'

/**
 * MiniMax image: one POST /image_generation with aspect_ratio, model, n, prompt, seed
 * (providers.md §7); reference images go as subject_reference. The answer carries
 * base_resp.status_code (0 is success) and data.image_urls.
 */
export async function createMinimaxImage(endpoint: ImageEndpoint, request: CreateImageRequest, options: CallOptions = {}): Promise<CreateImageResult> {
  const { params } = request
  const references = inputImages(params)
  const body = {
    aspect_ratio: params.aspectRatio ?? '1:1',
    model: request.model,
    n: 1,
    prompt: params.prompt,
    ...(typeof params.seed === 'number' ? { seed: params.seed } : {}),
    response_format: 'url',
    ...(references.length ? { subject_reference: references.map((image_file) => ({ type: 'character', image_file })) } : {})
  }
  const response = await requestJson(
    endpoint,
    'create',
    joinUrl(endpoint.baseURL, 'image_generation'),
    { method: 'POST', headers: { authorization: `Bearer ${endpoint.apiKey}` }, body },
    options.signal
  )
  const base = response['base_resp'] as { status_code?: number; status_msg?: string } | undefined
  if (base && typeof base.status_code === 'number' && base.status_code !== 0) {
    throw taskError(`Failed to create image task (${base.status_code}): ${reasonOf(base, 'unknown error')}`, endpoint.provider)
  }
  const data = response['data'] as { image_urls?: string[]; image_base64?: string[] } | undefined
  const url = data?.image_urls?.find((u) => typeof u === 'string' && u)
  if (url) return { imageUrl: url }
  const b64 = data?.image_base64?.find((u) => typeof u === 'string' && u)
  if (b64) return { imageUrl: `data:image/jpeg;base64,${b64}` }
  throw taskError('Invalid image response: missing or empty data array', endpoint.provider)
}
