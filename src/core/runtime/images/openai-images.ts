import type { OpenAI } from 'openai'
import { loadOpenAI } from '../sdk/load-sdk'
import { imageSizesForModel } from '../../../shared/image-params/families'
import { imageUrlToBase64 } from '../../../shared/utils/image-url-to-base64'
import type { CallOptions, CreateImageRequest, CreateImageResult } from '../types'
import { taskError } from './image-http'

export interface OpenAIImageContext {
  provider: string
  client: OpenAI
  fetch: typeof fetch
  /** Provider-specific body fields beyond OpenAI's (seed, steps…); official OpenAI sends none. */
  extraBody?(params: CreateImageRequest['params']): Record<string, unknown>
}

/** imageUrl and imageUrls are one list of input images for the edit endpoint (providers.md §5). */
export function inputImages(params: CreateImageRequest['params']): string[] {
  return [...(params.imageUrl ? [params.imageUrl] : []), ...(params.imageUrls ?? [])].filter((u) => typeof u === 'string' && u.length > 0)
}

/** The size to send: 'auto' is dropped (the API's own default), and so is one the model does not take. */
export function openAISize(model: string, size: string | undefined): string | undefined {
  if (!size || size === 'auto') return undefined
  const allowed = imageSizesForModel(model)
  return !allowed || allowed.includes(size) ? size : undefined
}

const EXT: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp', 'image/gif': 'gif' }

/**
 * OpenAI-style images: `images.generate`, or `images.edit` when input images are given
 * (they are fetched and uploaded as files). The first result is the image: base64 becomes
 * a data URL, a URL is returned as it is for the caller to fetch and store.
 */
export async function createOpenAIImage(ctx: OpenAIImageContext, request: CreateImageRequest, options: CallOptions = {}): Promise<CreateImageResult> {
  const { params } = request
  const size = openAISize(request.model, params.size)
  const images = inputImages(params)
  const body: Record<string, unknown> = {
    model: request.model,
    prompt: params.prompt,
    n: 1,
    ...(size ? { size } : {}),
    ...(params.quality ? { quality: params.quality } : {}),
    ...(ctx.extraBody?.(params) ?? {})
  }
  type Item = { b64_json?: string | null; url?: string | null }
  let response: { data?: Item[] | null; images?: Item[] }
  if (images.length > 0) {
    const { toFile } = await loadOpenAI()
    const files = await Promise.all(
      images.map(async (url, i) => {
        const { base64, mimeType } = await imageUrlToBase64(url, ctx.fetch, options.signal)
        return toFile(Buffer.from(base64, 'base64'), `image-${i + 1}.${EXT[mimeType] ?? 'png'}`, { type: mimeType })
      })
    )
    body['image'] = files.length === 1 ? files[0] : files
    response = (await ctx.client.images.edit(body as never, { signal: options.signal })) as never
  } else {
    response = (await ctx.client.images.generate(body as never, { signal: options.signal })) as never
  }
  // Some OpenAI-style servers (SiliconCloud) answer with `images` instead of `data`.
  const data = Array.isArray(response?.data) ? response.data : Array.isArray(response?.images) ? response.images : undefined
  const first = data?.[0]
  if (!first) throw taskError('Invalid image response: missing or empty data array', ctx.provider)
  if (first.b64_json) return { imageUrl: `data:image/png;base64,${first.b64_json}` }
  if (first.url) return { imageUrl: first.url }
  throw taskError('Invalid image response: missing or empty data array', ctx.provider)
}
