import { AppErrorException, type AppError } from '../../../shared/errors/app-error'
import { redactText } from '../../../shared/errors/redact'
import { isAbortError, isConnectionError } from '../errors/map-provider-error'
import { runtimeError } from '../runtime-error'
import { cancelled } from './polling'
import { safeParseJson } from '../../../shared/utils/safe-json'
import type { ErrorTypeName } from '../../../shared/errors/catalogue'

/** Everything an image protocol needs to reach its provider; the key stays in here. */
export interface ImageEndpoint {
  provider: string
  baseURL: string
  apiKey: string
  fetch: typeof fetch
}

/** A task error the caller should not retry (the provider said the task failed). */
export class FinalImageError extends AppErrorException {
  readonly final = true
}

export const isFinalImageError = (error: unknown): boolean => error instanceof FinalImageError

/** The status the catalogue gives an HTTP failure: 401 is a bad key; the rest is the provider's business. */
function typeForStatus(status: number): ErrorTypeName {
  if (status === 401) return 'InvalidProviderAPIKey'
  if (status === 403) return 'PermissionDenied'
  if (status === 429) return 'QuotaLimitReached'
  return 'ProviderBizError'
}

/** The provider's own words from an error body: message, msg, detail, error.message… */
export function reasonOf(body: unknown, fallback: string): string {
  if (typeof body === 'string') return body.trim() || fallback
  if (!body || typeof body !== 'object') return fallback
  const b = body as Record<string, unknown>
  for (const key of ['message', 'msg', 'error_message', 'detail', 'status_msg']) {
    const v = b[key]
    if (typeof v === 'string' && v) return v
    if (Array.isArray(v) && v.length) return v.map((d) => (typeof d === 'object' && d && 'msg' in d ? String((d as { msg: unknown }).msg) : String(d))).join('; ')
  }
  if (b['error'] && typeof b['error'] === 'object') return reasonOf(b['error'], fallback)
  if (typeof b['error'] === 'string') return b['error']
  if (b['base_resp'] && typeof b['base_resp'] === 'object') return reasonOf(b['base_resp'], fallback)
  return fallback
}

/** 'Failed to create image task (status): reason' and its query twin (providers.md §8). */
export function httpFailure(what: 'create' | 'query', status: number, body: unknown, endpoint: ImageEndpoint, Final = false): AppErrorException {
  const label = what === 'create' ? 'Failed to create image task' : 'Failed to query task status'
  const reason = redactText(reasonOf(body, `HTTP ${status}`), [endpoint.apiKey])
  const error: AppError = { ...runtimeError(typeForStatus(status), `${label} (${status}): ${reason}`, endpoint.provider), status }
  return Final ? new FinalImageError(error) : new AppErrorException(error)
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text()
  if (!text) return undefined
  // A body that is not JSON (an HTML error page) is kept as text for the message.
  return safeParseJson(text) ?? text
}

/**
 * One JSON request. HTTP errors become the spec's create/query messages; a 4xx on create is
 * final, a 4xx on a poll too (the task is gone), while 5xx and network failures on a poll are
 * transient (the poller retries them).
 */
export async function requestJson(
  endpoint: ImageEndpoint,
  what: 'create' | 'query',
  url: string,
  init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: unknown },
  signal?: AbortSignal
): Promise<Record<string, unknown>> {
  let response: Response
  try {
    response = await endpoint.fetch(url, {
      method: init.method,
      headers: { accept: 'application/json', ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}), ...init.headers },
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
      ...(signal ? { signal } : {})
    })
  } catch (error) {
    if (signal?.aborted || isAbortError(error)) throw cancelled(endpoint.provider)
    const reason = isConnectionError(error) ? 'could not connect to the provider' : error instanceof Error ? error.message : String(error)
    throw httpFailure(what, 0, redactText(reason, [endpoint.apiKey]), endpoint, what === 'create')
  }
  // A body that cannot be read still leaves the status, which is what the error is built from.
  const body = await readBody(response).catch(() => undefined)
  if (!response.ok) throw httpFailure(what, response.status, body, endpoint, what === 'create' || response.status < 500)
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw httpFailure(what, response.status, 'the response is not a JSON object', endpoint, false)
  return body as Record<string, unknown>
}

/** The ProviderBizError every protocol throws for a task that finished without a usable image. */
export const taskError = (message: string, provider: string, errorType: ErrorTypeName = 'ProviderBizError'): FinalImageError =>
  new FinalImageError(runtimeError(errorType, message, provider))

/** Joins a base URL and a path without doubling slashes. */
export const joinUrl = (base: string, path: string): string => `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`
