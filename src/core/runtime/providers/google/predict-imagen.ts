import { AppErrorException } from '../../../../shared/errors/app-error'
import type { CallOptions, CreateImageRequest, CreateImageResult } from '../../types'

/**
 * Imagen on the Gemini API: `models/{model}:predict` with one sample (providers.md §7,
 * numberOfImages 1). The SDK offers generateImages on Vertex only, hence this one call.
 * HTTP failures are thrown in the SDK's ApiError shape so mapGoogleError reads them alike.
 */
export async function predictImagen(args: { apiKey: string; baseURL: string; request: CreateImageRequest; options?: CallOptions }): Promise<CreateImageResult> {
  const { apiKey, baseURL, request, options } = args
  const url = `${baseURL.replace(/\/+$/, '')}/v1beta/models/${encodeURIComponent(request.model)}:predict`
  const response = await (options?.fetch ?? fetch)(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-goog-api-key': apiKey, ...options?.headers },
    body: JSON.stringify({
      instances: [{ prompt: request.params.prompt }],
      parameters: { sampleCount: 1, ...(request.params.aspectRatio ? { aspectRatio: request.params.aspectRatio } : {}) }
    }),
    ...(options?.signal ? { signal: options.signal } : {})
  })
  const text = await response.text()
  if (!response.ok) throw Object.assign(new Error(text || `HTTP ${response.status}`), { name: 'ApiError', status: response.status })
  const body = JSON.parse(text) as { predictions?: Array<{ bytesBase64Encoded?: string; mimeType?: string }> }
  const first = body.predictions?.[0]
  if (!first?.bytesBase64Encoded) {
    throw new AppErrorException({ errorType: 'ProviderBizError', message: 'Invalid image response: missing or empty data array', provider: 'google' })
  }
  return { imageUrl: `data:${first.mimeType ?? 'image/png'};base64,${first.bytesBase64Encoded}` }
}
