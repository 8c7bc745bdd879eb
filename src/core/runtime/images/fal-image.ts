import type { CallOptions, CreateImageRequest, CreateImageResult } from '../types'
import { isFinalImageError, joinUrl, reasonOf, requestJson, taskError, type ImageEndpoint } from './image-http'
import { pollTask } from './polling'
import { modelPath } from '../model-path'

export const FAL_DEFAULT_BASE_URL = 'https://queue.fal.run'

/** Models whose reference images go to a sibling `/edit` endpoint; Seedream's plain one is `/text-to-image`. */
const EDIT_ENDPOINTS = new Set(['fal-ai/nano-banana', 'fal-ai/bytedance/seedream/v4'])
const TEXT_ENDPOINTS: Record<string, string> = { 'fal-ai/bytedance/seedream/v4': 'fal-ai/bytedance/seedream/v4/text-to-image' }

export function falEndpoint(request: CreateImageRequest, provider = 'fal'): string {
  // The id is the app's path on the queue (`fal-ai/flux/dev`): each part one segment, nothing more.
  const path = modelPath(request.model, provider)
  const hasImages = Boolean(request.params.imageUrl) || (request.params.imageUrls?.length ?? 0) > 0
  if (hasImages && EDIT_ENDPOINTS.has(request.model)) return `${path}/edit`
  return TEXT_ENDPOINTS[request.model] ?? path
}

/** Our parameter names → fal's input fields. */
export function falInput(params: CreateImageRequest['params']): Record<string, unknown> {
  const input: Record<string, unknown> = { prompt: params.prompt, num_images: 1 }
  if (typeof params.seed === 'number') input['seed'] = params.seed
  if (params.width && params.height) input['image_size'] = { width: params.width, height: params.height }
  else if (params.size) input['image_size'] = params.size
  if (params.aspectRatio) input['aspect_ratio'] = params.aspectRatio
  if (params.steps) input['num_inference_steps'] = params.steps
  if (params.cfg !== undefined) input['guidance_scale'] = params.cfg
  if (params.imageUrl) input['image_url'] = params.imageUrl
  if (params.imageUrls?.length) input['image_urls'] = params.imageUrls
  return input
}

/**
 * Fal's queue ("subscribe"): submit to queue.fal.run/{endpoint}, poll the status URL until
 * COMPLETED, then read the result from the response URL (images[0] with its width and height).
 */
export async function createFalImage(endpoint: ImageEndpoint, request: CreateImageRequest, options: CallOptions = {}): Promise<CreateImageResult> {
  const headers = { authorization: `Key ${endpoint.apiKey}` }
  const path = falEndpoint(request, endpoint.provider)
  const submitted = await requestJson(endpoint, 'create', joinUrl(endpoint.baseURL, path), { method: 'POST', headers, body: falInput(request.params) }, options.signal)
  const id = typeof submitted['request_id'] === 'string' ? submitted['request_id'] : undefined
  if (!id) throw taskError('Failed to create image task (200): no request id in the response', endpoint.provider)
  // Status and result live under the app id (owner/app), not the full endpoint path.
  const app = path.split('/').slice(0, 2).join('/')
  const statusUrl = typeof submitted['status_url'] === 'string' ? submitted['status_url'] : joinUrl(endpoint.baseURL, `${app}/requests/${id}/status`)
  const responseUrl = typeof submitted['response_url'] === 'string' ? submitted['response_url'] : joinUrl(endpoint.baseURL, `${app}/requests/${id}`)
  options.imagePolling?.onProgress?.({ phase: 'submitted', taskId: id })

  await pollTask<true>({
    provider: endpoint.provider,
    signal: options.signal,
    options: options.imagePolling,
    isFinal: isFinalImageError,
    poll: async () => {
      const body = await requestJson(endpoint, 'query', statusUrl, { method: 'GET', headers }, options.signal)
      const status = typeof body['status'] === 'string' ? body['status'] : undefined
      if (status === 'COMPLETED') return { done: true, value: true }
      if (status === 'FAILED' || status === 'ERROR') throw taskError(`Image generation failed: ${reasonOf(body, status)}`, endpoint.provider)
      return { done: false, ...(status ? { status } : {}) }
    }
  })

  // A failed request is COMPLETED too; its result answers with the error (4xx/5xx), which is final.
  let result: Record<string, unknown>
  try {
    result = await requestJson(endpoint, 'query', responseUrl, { method: 'GET', headers }, options.signal)
  } catch (error) {
    throw isFinalImageError(error) ? error : taskError((error as Error).message, endpoint.provider)
  }
  const images = result['images'] as Array<{ url?: string; width?: number; height?: number }> | undefined
  const first = images?.find((i) => typeof i?.url === 'string' && i.url)
  if (!first?.url) throw taskError('Task succeeded but no images generated', endpoint.provider)
  const seed = result['seed']
  return {
    imageUrl: first.url,
    ...(first.width ? { width: first.width } : {}),
    ...(first.height ? { height: first.height } : {}),
    ...(typeof seed === 'number' ? { seed } : {})
  }
}
