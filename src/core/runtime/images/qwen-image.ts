import { AppErrorException } from '../../../shared/errors/app-error'
import { DEFAULT_IMAGE_SIZE, parseImageSize } from '../../../shared/image-params/families'
import { checkQwenImageModel, qwenImageRoute } from '../../../shared/image-params/qwen-image'
import type { CallOptions, CreateImageRequest, CreateImageResult } from '../types'
import { isFinalImageError, joinUrl, requestJson, taskError, type ImageEndpoint } from './image-http'
import { pollTask } from './polling'

/** DashScope's native API lives next to its OpenAI-compatible one: …/compatible-mode/v1 → …/api/v1. */
export function dashScopeApiBase(baseURL: string): string {
  const trimmed = baseURL.replace(/\/+$/, '')
  if (/\/compatible-mode\/v1$/.test(trimmed)) return trimmed.replace(/\/compatible-mode\/v1$/, '/api/v1')
  if (/\/api\/v1$/.test(trimmed)) return trimmed
  return `${new URL(trimmed).origin}/api/v1`
}

/** 'W*H' as the service wants it, from width/height or a 'WxH' size; 1024*1024 by default (providers.md §9). */
export function qwenSize(params: CreateImageRequest['params']): string {
  return explicitSize(params) ?? DEFAULT_IMAGE_SIZE
}

function explicitSize(params: CreateImageRequest['params']): string | undefined {
  if (params.width && params.height) return `${params.width}*${params.height}`
  const parsed = params.size ? parseImageSize(params.size) : undefined
  return parsed ? `${parsed.width}*${parsed.height}` : undefined
}

interface QwenOutput {
  task_id?: string
  task_status?: string
  results?: Array<{ url?: string }>
  /** The message-format endpoints (multimodal-generation, image-generation) answer with choices. */
  choices?: Array<{ message?: { content?: Array<{ image?: string }> } }>
  error_message?: string
  message?: string
  code?: string
}

/** The first image of either answer shape: `results[].url` (image-synthesis) or `choices[].message.content[].image`. */
function firstImage(output: QwenOutput): string | undefined {
  const fromResults = output.results?.find((r) => typeof r.url === 'string' && r.url)?.url
  if (fromResults) return fromResults
  for (const choice of output.choices ?? []) {
    const image = choice.message?.content?.find((part) => typeof part.image === 'string' && part.image)?.image
    if (image) return image
  }
  return undefined
}

/** Optional switches the catalogue offers per model; sent only when set. */
function switches(params: CreateImageRequest['params']): Record<string, unknown> {
  return {
    ...(typeof params.seed === 'number' ? { seed: params.seed } : {}),
    ...(typeof params.promptExtend === 'boolean' ? { prompt_extend: params.promptExtend } : {}),
    ...(typeof params.watermark === 'boolean' ? { watermark: params.watermark } : {})
  }
}

const references = (params: CreateImageRequest['params']): string[] => [...(params.imageUrl ? [params.imageUrl] : []), ...(params.imageUrls ?? [])]

/** One user message: the reference images, then the prompt (the message format of the newer endpoints). */
const messages = (params: CreateImageRequest['params']) => [{ role: 'user', content: [...references(params).map((image) => ({ image })), { text: params.prompt }] }]

/**
 * The Qwen image service (providers.md §4, §7), through the endpoint each model needs
 * (see `qwenImageRoute`): an async task created with the async header and polled at
 * tasks/{id} until SUCCEEDED (first image) or FAILED, or one synchronous multimodal call.
 */
export async function createQwenImage(endpoint: ImageEndpoint, request: CreateImageRequest, options: CallOptions = {}): Promise<CreateImageResult> {
  const unsupported = checkQwenImageModel(request.model)
  if (unsupported) throw new AppErrorException({ ...unsupported, provider: endpoint.provider })
  const api = dashScopeApiBase(endpoint.baseURL)
  const { params } = request
  const size = explicitSize(params)
  switch (qwenImageRoute(request.model)!) {
    case 'text2image':
      return asyncTask(endpoint, api, 'services/aigc/text2image/image-synthesis', {
        input: { prompt: params.prompt },
        model: request.model,
        parameters: { n: 1, ...switches(params), size: qwenSize(params) }
      }, options)
    case 'image2image':
      return asyncTask(endpoint, api, 'services/aigc/image2image/image-synthesis', {
        input: { prompt: params.prompt, images: references(params) },
        model: request.model,
        parameters: { n: 1, ...switches(params), ...(size ? { size } : {}) }
      }, options)
    case 'image-generation':
      return asyncTask(endpoint, api, 'services/aigc/image-generation/generation', {
        model: request.model,
        input: { messages: messages(params) },
        parameters: {
          n: 1,
          ...switches(params),
          ...(size ? { size } : {}),
          ...(params.aspectRatio ? { aspect_ratio: params.aspectRatio } : {}),
          ...(params.resolution ? { resolution: params.resolution } : {})
        }
      }, options)
    case 'multimodal':
      return multimodal(endpoint, api, {
        model: request.model,
        input: { messages: messages(params) },
        parameters: { ...switches(params), ...(size ? { size } : {}) }
      }, options)
  }
}

/** The synchronous multimodal-generation call: the image is in the reply itself. */
async function multimodal(endpoint: ImageEndpoint, api: string, body: Record<string, unknown>, options: CallOptions): Promise<CreateImageResult> {
  const reply = await requestJson(
    endpoint,
    'create',
    joinUrl(api, 'services/aigc/multimodal-generation/generation'),
    { method: 'POST', headers: { authorization: `Bearer ${endpoint.apiKey}` }, body },
    options.signal
  )
  const image = firstImage((reply['output'] ?? {}) as QwenOutput)
  if (!image) throw taskError(`Qwen image generation failed: ${String(reply['message'] ?? 'the reply holds no image')}`, endpoint.provider)
  return { imageUrl: image }
}

/** Create a task with the async header, then poll tasks/{id}: SUCCEEDED needs an image, FAILED says why, anything else is pending. */
async function asyncTask(endpoint: ImageEndpoint, api: string, path: string, body: Record<string, unknown>, options: CallOptions): Promise<CreateImageResult> {
  const auth = { authorization: `Bearer ${endpoint.apiKey}` }
  const created = await requestJson(endpoint, 'create', joinUrl(api, path), { method: 'POST', headers: { ...auth, 'X-DashScope-Async': 'enable' }, body }, options.signal)
  const taskId = (created['output'] as QwenOutput | undefined)?.task_id
  if (!taskId) throw taskError(`Failed to create image task (200): ${String(created['message'] ?? 'no task id in the response')}`, endpoint.provider)
  options.imagePolling?.onProgress?.({ phase: 'submitted', taskId })

  const url = await pollTask<string>({
    provider: endpoint.provider,
    signal: options.signal,
    options: options.imagePolling,
    isFinal: isFinalImageError,
    poll: async () => {
      const reply = await requestJson(endpoint, 'query', joinUrl(api, `tasks/${encodeURIComponent(taskId)}`), { method: 'GET', headers: auth }, options.signal)
      const output = (reply['output'] ?? {}) as QwenOutput
      const status = output.task_status
      if (status === 'SUCCEEDED') {
        const first = firstImage(output)
        if (!first) throw taskError('Task succeeded but no images generated', endpoint.provider)
        return { done: true, value: first }
      }
      if (status === 'FAILED') {
        const reason = output.error_message || output.message || 'Image generation task failed'
        throw taskError(`Qwen image generation failed: ${reason}`, endpoint.provider)
      }
      return { done: false, ...(status ? { status } : {}) }
    }
  })
  return { imageUrl: url }
}
