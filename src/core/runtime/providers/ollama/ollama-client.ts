import type { Ollama, ShowResponse } from 'ollama'
import { loadOllama } from '../../sdk/load-sdk'
import { DEFAULT_LOCAL_ENDPOINTS } from '../../../../shared/local/local-servers'
import { invalidOllamaArgs } from './ollama-errors'

/**
 * Validates a user-given base URL and returns it normalised (no trailing slash). Ollama
 * accepts `host:port` and `:port` too, as its own CLI does with OLLAMA_HOST.
 */
export function normaliseOllamaBaseUrl(baseUrl: string | undefined): string {
  const raw = (baseUrl ?? '').trim()
  if (!raw) return DEFAULT_LOCAL_ENDPOINTS.ollama
  let candidate = raw.startsWith(':') ? `http://127.0.0.1${raw}` : raw
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(candidate)) candidate = `http://${candidate}`
  let url: URL
  try {
    url = new URL(candidate)
  } catch {
    throw invalidOllamaArgs(`The Ollama base URL is not a valid URL: ${JSON.stringify(maskUrl(raw))}`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw invalidOllamaArgs(`The Ollama base URL must start with http:// or https:// (got ${url.protocol})`)
  }
  if (!url.hostname) throw invalidOllamaArgs('The Ollama base URL has no host name')
  // Ollama serves under /api itself; a pasted '/api' or '/v1' suffix would double it.
  const path = url.pathname.replace(/\/+$/, '').replace(/\/(api|v1)$/, '')
  return `${url.protocol}//${url.username ? `${url.username}${url.password ? `:${url.password}` : ''}@` : ''}${url.host}${path}`
}

/** A URL fit for a message or a log: credentials replaced. */
export function maskUrl(value: string): string {
  return value.replace(/\/\/[^/@\s]+@/, '//***@')
}

/**
 * The one way to an Ollama server, for the chat runtime, the model manager and pulls alike.
 * One SDK client per call site; cheap (no connection is opened until a request). The base URL
 * is checked before the SDK loads, so a bad one fails the same way whether or not it has.
 */
export async function createOllamaClient(baseUrl: string | undefined, fetchImpl?: typeof fetch): Promise<Ollama> {
  const host = normaliseOllamaBaseUrl(baseUrl)
  const { Ollama } = await loadOllama()
  return new Ollama({ host, ...(fetchImpl ? { fetch: fetchImpl } : {}) })
}

/**
 * A number from /api/show's model_info: `<architecture>.<suffix>` (e.g. `llama.context_length`),
 * else any key ending in `.<suffix>` (some GGUF conversions name the architecture differently).
 */
export function modelInfoNumber(info: Record<string, unknown>, suffix: string): number | undefined {
  const arch = info['general.architecture']
  const direct = typeof arch === 'string' ? info[`${arch}.${suffix}`] : undefined
  if (typeof direct === 'number') return direct
  for (const [key, value] of Object.entries(info)) if (key.endsWith(`.${suffix}`) && typeof value === 'number') return value
  return undefined
}

/** The model's context window from an /api/show answer, when the server tells it. */
export function contextLengthOf(show: Pick<ShowResponse, 'model_info'>): number | undefined {
  return modelInfoNumber((show.model_info ?? {}) as unknown as Record<string, unknown>, 'context_length')
}
