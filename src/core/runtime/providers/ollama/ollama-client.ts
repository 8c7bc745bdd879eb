import { Ollama } from 'ollama'
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

/** One SDK client per call site; cheap (no connection is opened until a request). */
export function createOllamaClient(baseUrl: string | undefined, fetchImpl?: typeof fetch): Ollama {
  const host = normaliseOllamaBaseUrl(baseUrl)
  return new Ollama({ host, ...(fetchImpl ? { fetch: fetchImpl } : {}) })
}
