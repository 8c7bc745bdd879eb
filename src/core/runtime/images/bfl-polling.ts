import { AppErrorException } from '../../../shared/errors/app-error'
import { PROVIDER_MAX_INPUT_IMAGES } from '../../../shared/image-params/families'
import { runtimeError } from '../runtime-error'
import type { CallOptions, CreateImageRequest, CreateImageResult } from '../types'
import { isFinalImageError, joinUrl, requestJson, taskError, type ImageEndpoint } from './image-http'
import { inputImages } from './openai-images'
import { pollTask } from './polling'

export const BFL_DEFAULT_BASE_URL = 'https://api.bfl.ai'

/** The models the polling provider serves, each at its own path (providers.md §7). */
export const BFL_MODELS = ['flux-kontext-pro', 'flux-kontext-max', 'flux-pro-1.1', 'flux-pro-1.1-ultra', 'flux-pro', 'flux-dev'] as const

/** Statuses that end a task in failure (providers.md §4); anything but Ready and these keeps polling. */
const FAILED = new Set(['Error', 'Content Moderated', 'Request Moderated', 'Task not found'])

/** The request body for one model family: Kontext takes input_image…input_image_4; the others one image_prompt. */
export function bflBody(request: CreateImageRequest): Record<string, unknown> {
  const { model, params } = request
  const body: Record<string, unknown> = { prompt: params.prompt }
  if (typeof params.seed === 'number') body['seed'] = params.seed
  if (params.aspectRatio) body['aspect_ratio'] = params.aspectRatio
  if (params.width) body['width'] = params.width
  if (params.height) body['height'] = params.height
  if (params.steps) body['steps'] = params.steps
  if (params.cfg !== undefined) body['guidance'] = params.cfg
  const images = inputImages(params)
  if (model.startsWith('flux-kontext')) {
    images.slice(0, PROVIDER_MAX_INPUT_IMAGES['bfl'] ?? 4).forEach((url, i) => (body[i === 0 ? 'input_image' : `input_image_${i + 1}`] = url))
  } else if (images[0]) body['image_prompt'] = images[0]
  return body
}

/**
 * The polling image provider (Black Forest Labs): POST /v1/{model} with the x-key header,
 * then GET the returned polling URL until Ready (result.sample) or a failure status.
 */
export async function createBflImage(endpoint: ImageEndpoint, request: CreateImageRequest, options: CallOptions = {}): Promise<CreateImageResult> {
  if (!(BFL_MODELS as readonly string[]).includes(request.model)) {
    throw new AppErrorException(runtimeError('ModelNotFound', `Unsupported BFL model: ${request.model}`, endpoint.provider))
  }
  const headers = { 'x-key': endpoint.apiKey }
  const base = endpoint.baseURL.replace(/\/+$/, '').replace(/\/v1$/, '')
  const created = await requestJson(endpoint, 'create', joinUrl(base, `v1/${request.model}`), { method: 'POST', headers, body: bflBody(request) }, options.signal)
  const id = typeof created['id'] === 'string' ? created['id'] : undefined
  const pollingUrl = typeof created['polling_url'] === 'string' ? created['polling_url'] : id ? joinUrl(base, `v1/get_result?id=${encodeURIComponent(id)}`) : undefined
  if (!pollingUrl) throw taskError('Failed to create image task (200): no task id in the response', endpoint.provider)
  options.imagePolling?.onProgress?.({ phase: 'submitted', ...(id ? { taskId: id } : {}) })

  return pollTask<CreateImageResult>({
    provider: endpoint.provider,
    signal: options.signal,
    options: options.imagePolling,
    isFinal: isFinalImageError,
    poll: async () => {
      const body = await requestJson(endpoint, 'query', pollingUrl, { method: 'GET', headers }, options.signal)
      const status = typeof body['status'] === 'string' ? body['status'] : undefined
      if (status === 'Ready') {
        const result = body['result'] as { sample?: unknown; seed?: unknown } | undefined
        const sample = result?.sample
        if (typeof sample !== 'string' || !sample) throw taskError('Task succeeded but no images generated', endpoint.provider)
        return { done: true, value: { imageUrl: sample, ...(typeof result?.seed === 'number' ? { seed: result.seed } : {}) } }
      }
      if (status && FAILED.has(status)) {
        const detail = body['details'] ?? body['error']
        const reason = typeof detail === 'string' ? detail : detail ? JSON.stringify(detail) : status
        throw taskError(`Image generation failed: ${status}${reason !== status ? ` (${reason})` : ''}`, endpoint.provider)
      }
      return { done: false, ...(status ? { status } : {}) }
    }
  })
}
