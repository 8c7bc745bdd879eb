import { DownloadError } from './file-download'

/**
 * One bounded request to a hub or registry for something small (a file list, a search, a
 * manifest, a header's bytes): the body is counted as it arrives, after decompression (a
 * gzip bomb is refused at the limit, not after it has filled memory), and a hub that stops
 * sending (before the answer's headers or between two chunks) is an error after `idleMs`, as
 * is one that drips bytes past `totalMs`. Downloads of model files do not come through here:
 * they stream to disk (`file-download.ts`).
 */
export interface HubReadOptions {
  /** Who answers, for the error: "the hub at huggingface.co", "the Ollama registry at …". */
  source: string
  /** What was asked for, for the error: "the file list of owner/repo". */
  what: string
  /** Bytes of body kept at most. */
  maxBytes: number
  /** Past `maxBytes`, keep the first `maxBytes` and stop (a header prefix) instead of refusing. */
  cut?: boolean
  idleMs?: number
  totalMs?: number
  signal?: AbortSignal
}

export interface HubAnswer {
  status: number
  ok: boolean
  headers: Headers
  body: Buffer
}

/** A list, a search or a manifest: 8 MB is far more than any real one (a 5,000-file repository lists in ~1 MB). */
export const MAX_LIST_BYTES = 8 * 1024 * 1024
/** Silence that ends a request to a hub. */
export const HUB_IDLE_MS = 15_000
const HUB_TOTAL_MS = 120_000

const mb = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MB`

export async function readFromHub(doFetch: typeof fetch, url: string, init: RequestInit, options: HubReadOptions): Promise<HubAnswer> {
  const idleMs = options.idleMs ?? HUB_IDLE_MS
  const controller = new AbortController()
  let reason: DownloadError | undefined
  const stop = (error: DownloadError) => {
    reason ??= error
    controller.abort(error)
  }
  const silent = () =>
    new DownloadError(`${options.source} stopped sending ${options.what} for ${Math.round(idleMs / 1000)} s: the request was given up. Check the network (or the mirror address), then try again.`, 'network')
  let idle = setTimeout(() => stop(silent()), idleMs)
  const touch = () => {
    clearTimeout(idle)
    idle = setTimeout(() => stop(silent()), idleMs)
  }
  const total = setTimeout(
    () => stop(new DownloadError(`${options.source} took more than ${Math.round((options.totalMs ?? HUB_TOTAL_MS) / 1000)} s to send ${options.what}: the request was given up.`, 'network')),
    options.totalMs ?? HUB_TOTAL_MS
  )
  const onOuterAbort = () => controller.abort(options.signal?.reason)
  options.signal?.addEventListener('abort', onOuterAbort, { once: true })
  try {
    let response: Response
    try {
      response = await doFetch(url, { ...init, signal: controller.signal })
    } catch (error) {
      if (reason) throw reason
      throw error
    }
    touch()
    const declared = Number(response.headers.get('content-length') ?? NaN)
    const encoded = Boolean(response.headers.get('content-encoding'))
    if (!options.cut && !encoded && declared > options.maxBytes) {
      await response.body?.cancel().catch(() => undefined)
      throw tooLarge(options)
    }
    const chunks: Buffer[] = []
    let length = 0
    const reader = response.body?.getReader()
    if (reader) {
      try {
        for (;;) {
          let step: Awaited<ReturnType<typeof reader.read>>
          try {
            step = await reader.read()
          } catch (error) {
            if (reason) throw reason
            throw error
          }
          if (step.done) break
          touch()
          const room = options.maxBytes - length
          if (step.value.byteLength > room) {
            if (!options.cut) throw tooLarge(options)
            chunks.push(Buffer.from(step.value.buffer, step.value.byteOffset, room))
            length += room
            break
          }
          chunks.push(Buffer.from(step.value.buffer, step.value.byteOffset, step.value.byteLength))
          length += step.value.byteLength
          if (options.cut && length === options.maxBytes) break
        }
      } finally {
        await reader.cancel().catch(() => undefined)
      }
    }
    return { status: response.status, ok: response.ok, headers: response.headers, body: Buffer.concat(chunks, length) }
  } finally {
    clearTimeout(idle)
    clearTimeout(total)
    options.signal?.removeEventListener('abort', onOuterAbort)
  }
}

const tooLarge = (options: HubReadOptions) =>
  new DownloadError(
    `${options.source} sent more than ${mb(options.maxBytes)} for ${options.what} (counted after decompression): it was refused, as no real answer is that large. The hub or mirror is broken or not a model hub.`,
    'tooLarge'
  )

/** A JSON answer, refused with a clear error when it is not JSON. */
export function parseHubJson(answer: HubAnswer, options: Pick<HubReadOptions, 'source' | 'what'>): unknown {
  try {
    return JSON.parse(answer.body.toString('utf8'))
  } catch {
    throw new DownloadError(`${options.source} sent ${options.what} that is not JSON.`, 'http')
  }
}

/** "the hub at host" for errors. */
export const hubName = (endpoint: string, kind = 'the hub') => {
  try {
    return `${kind} at ${new URL(endpoint).host}`
  } catch {
    return kind
  }
}
