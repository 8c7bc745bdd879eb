import { AppErrorException } from '../errors/app-error'
import { logError } from '../errors/log'
import { parseDataUrl } from './data-url'

export type FetchLike = (url: string, init?: { signal?: AbortSignal }) => Promise<{
  ok: boolean
  status: number
  headers: { get(name: string): string | null }
  arrayBuffer(): Promise<ArrayBuffer>
}>

export interface ImageBase64 {
  base64: string
  mimeType: string
}

/**
 * An image URL (or a data URL) as base64 plus mime type, for providers that want inline
 * images. The fetch function is a parameter so the core can pass its own (proxy, timeouts)
 * and tests a fake one. Failures are AppErrorException('Failed to fetch image', …).
 */
export async function imageUrlToBase64(url: string, fetchFn: FetchLike, signal?: AbortSignal): Promise<ImageBase64> {
  try {
    return await convert(url, fetchFn, signal)
  } catch (error) {
    // product.md §7: a failed conversion is logged, then the caller gets the error as it was.
    logError(`Failed to convert the image ${truncate(url)} to base64`, error)
    throw error
  }
}

async function convert(url: string, fetchFn: FetchLike, signal?: AbortSignal): Promise<ImageBase64> {
  const parsed = parseDataUrl(url)
  if (parsed.type === 'base64') return { base64: parsed.base64, mimeType: parsed.mimeType }
  if (parsed.type !== 'url') throw failure(`not an image URL: ${truncate(url)}`)
  let response: Awaited<ReturnType<FetchLike>>
  try {
    response = await fetchFn(url, signal ? { signal } : undefined)
  } catch (error) {
    throw failure(error instanceof Error ? error.message : String(error))
  }
  if (!response.ok) throw failure(`HTTP ${response.status}`, response.status)
  const mimeType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim() || 'image/png'
  const bytes = new Uint8Array(await response.arrayBuffer())
  return { base64: toBase64(bytes), mimeType }
}

function toBase64(bytes: Uint8Array): string {
  let binary = ''
  const chunk = 0x8000
  for (let i = 0; i < bytes.length; i += chunk) binary += String.fromCharCode(...bytes.subarray(i, i + chunk))
  return btoa(binary)
}

const truncate = (s: string) => (s.length > 80 ? `${s.slice(0, 77)}...` : s)

const failure = (reason: string, status?: number) =>
  new AppErrorException({ errorType: 'ProviderBizError', message: `Failed to fetch image: ${reason}`, ...(status ? { status } : {}) })
