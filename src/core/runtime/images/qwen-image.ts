import { AppErrorException } from '../../../shared/errors/app-error'
import { DEFAULT_IMAGE_SIZE, parseImageSize } from '../../../shared/image-params/families'
import { checkQwenImageModel } from '../../../shared/image-params/qwen-image'
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
  if (params.width && params.height) return `${params.width}*${params.height}`
  const parsed = params.size ? parseImageSize(params.size) : undefined
  return parsed ? `${parsed.width}*${parsed.height}` : DEFAULT_IMAGE_SIZE
}

interface QwenOutput {
  task_id?: string
  task_status?: string
  results?: Array<{ url?: string }>
  error_message?: string
  message?: string
  code?: string
}

/**
 * The Qwen (Wanxiang) image service (providers.md §4, §7): create an async task at the
 * image-synthesis path, then GET tasks/{id} until SUCCEEDED (first result url) or FAILED.
 */
export async function createQwenImage(endpoint: ImageEndpoint, request: CreateImageRequest, options: CallOptions = {}): Promise<CreateImageResult> {
  const unsupported = checkQwenImageModel(request.model)
  if (unsupported) throw new AppErrorException({ ...unsupported, provider: endpoint.provider })
  const api = dashScopeApiBase(endpoint.baseURL)
  const auth = { authorization: `Bearer ${endpoint.apiKey}` }
  const { params } = request
  const created = await requestJson(
    endpoint,
    'create',
    joinUrl(api, 'services/aigc/text2image/image-synthesis'),
    {
      method: 'POST',
      headers: { ...auth, 'X-DashScope-Async': 'enable' },
      body: {
        input: { prompt: params.prompt },
        model: request.model,
        parameters: { n: 1, ...(typeof params.seed === 'number' ? { seed: params.seed } : {}), size: qwenSize(params) }
      }
    },
    options.signal
  )
  const taskId = (created['output'] as QwenOutput | undefined)?.task_id
  if (!taskId) throw taskError(`Failed to create image task (200): ${String(created['message'] ?? 'no task id in the response')}`, endpoint.provider)
  options.imagePolling?.onProgress?.({ phase: 'submitted', taskId })

  const url = await pollTask<string>({
    provider: endpoint.provider,
    signal: options.signal,
    options: options.imagePolling,
    isFinal: isFinalImageError,
    poll: async () => {
      const body = await requestJson(endpoint, 'query', joinUrl(api, `tasks/${encodeURIComponent(taskId)}`), { method: 'GET', headers: auth }, options.signal)
      const output = (body['output'] ?? {}) as QwenOutput
      const status = output.task_status
      if (status === 'SUCCEEDED') {
        const first = output.results?.find((r) => typeof r.url === 'string' && r.url)
        if (!first?.url) throw taskError('Task succeeded but no images generated', endpoint.provider)
        return { done: true, value: first.url }
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
