import type { GroundingCitation } from '../../../shared/stream/events'
import type { SearchProviderId } from '../../../shared/tools/types'
import { pluginException } from '../tool-errors'
import { safeFetch } from './fetch-policy'

export interface SearchResult {
  title: string
  url: string
  snippet: string
}

export interface SearchConfig {
  provider: SearchProviderId
  /** SearXNG: the instance's address. */
  url?: string
  /** Google Programmable Search: the engine id (cx). */
  googleCx?: string
  /** From the keychain (`tools.search.<provider>`); SearXNG needs none. */
  apiKey?: string
}

export const webSearchSchema = {
  type: 'object',
  properties: { query: { type: 'string', description: 'What to search the web for.' }, max_results: { type: 'integer', minimum: 1, maximum: 20 } },
  required: ['query']
} as const

const MAX_SEARCH_BYTES = 2 * 1024 * 1024

/** One search provider's request: where, how, and how its answer becomes results. */
interface Endpoint {
  url: string
  method?: 'GET' | 'POST'
  headers?: Record<string, string>
  body?: unknown
  results(json: Record<string, unknown>): SearchResult[]
}

const arr = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? (v as Record<string, unknown>[]) : [])
const str = (v: unknown): string => (typeof v === 'string' ? v : '')

function endpoint(config: SearchConfig, query: string, count: number): Endpoint {
  const q = encodeURIComponent(query)
  const key = config.apiKey ?? ''
  const needKey = () => {
    if (!key) throw pluginException('PluginSettingsInvalid', `Web search with ${config.provider} needs its API key (Settings → Tools → Web search).`)
  }
  switch (config.provider) {
    case 'searxng': {
      if (!config.url) throw pluginException('PluginSettingsInvalid', 'Web search with SearXNG needs the address of your instance (Settings → Tools → Web search).')
      const base = config.url.replace(/\/+$/, '')
      return { url: `${base}/search?q=${q}&format=json`, results: (j) => arr(j['results']).map((r) => ({ title: str(r['title']), url: str(r['url']), snippet: str(r['content']) })) }
    }
    case 'tavily':
      needKey()
      return {
        url: 'https://api.tavily.com/search',
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: { query, max_results: count },
        results: (j) => arr(j['results']).map((r) => ({ title: str(r['title']), url: str(r['url']), snippet: str(r['content']) }))
      }
    case 'brave':
      needKey()
      return {
        url: `https://api.search.brave.com/res/v1/web/search?q=${q}&count=${count}`,
        headers: { 'x-subscription-token': key, accept: 'application/json' },
        results: (j) => arr((j['web'] as Record<string, unknown> | undefined)?.['results']).map((r) => ({ title: str(r['title']), url: str(r['url']), snippet: str(r['description']) }))
      }
    case 'exa':
      needKey()
      return {
        url: 'https://api.exa.ai/search',
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: { query, numResults: count, contents: { text: { maxCharacters: 1000 } } },
        results: (j) => arr(j['results']).map((r) => ({ title: str(r['title']), url: str(r['url']), snippet: str(r['text']) }))
      }
    case 'jina':
      needKey()
      return {
        url: `https://s.jina.ai/?q=${q}`,
        headers: { authorization: `Bearer ${key}`, accept: 'application/json', 'x-respond-with': 'no-content' },
        results: (j) => arr(j['data']).map((r) => ({ title: str(r['title']), url: str(r['url']), snippet: str(r['description'] ?? r['content']) }))
      }
    case 'google':
      needKey()
      if (!config.googleCx) throw pluginException('PluginSettingsInvalid', 'Google Programmable Search needs the search engine id (cx).')
      return {
        url: `https://www.googleapis.com/customsearch/v1?key=${encodeURIComponent(key)}&cx=${encodeURIComponent(config.googleCx)}&q=${q}&num=${Math.min(count, 10)}`,
        results: (j) => arr(j['items']).map((r) => ({ title: str(r['title']), url: str(r['link']), snippet: str(r['snippet']) }))
      }
  }
}

/** Runs a search with the configured provider; results double as citations. */
export async function webSearch(
  args: Record<string, unknown>,
  config: SearchConfig,
  options: { signal?: AbortSignal; fetch?: typeof fetch } = {}
): Promise<{ results: SearchResult[]; citations: GroundingCitation[]; text: string }> {
  const query = args['query']
  if (typeof query !== 'string' || !query.trim()) throw pluginException('PluginApiParamsError', 'web_search needs a non-empty "query" string.')
  const count = typeof args['max_results'] === 'number' ? Math.max(1, Math.min(20, Math.floor(args['max_results']))) : 8
  const e = endpoint(config, query.slice(0, 500), count)
  // The search service's address is the user's own choice (often a SearXNG on this machine), not the model's.
  const page = await safeFetch(e.url, {
    allowPrivate: true,
    maxBytes: MAX_SEARCH_BYTES,
    method: e.method ?? 'GET',
    ...(e.headers ? { headers: e.headers } : {}),
    ...(e.body !== undefined ? { body: JSON.stringify(e.body) } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {})
  })
  if (page.status === 401 || page.status === 403) throw pluginException('PluginSettingsInvalid', `${config.provider} refused the API key (${page.status}).`)
  if (page.status >= 400) throw pluginException('PluginServerError', `${config.provider} search answered ${page.status}.`)
  let json: Record<string, unknown>
  try {
    json = JSON.parse(page.body) as Record<string, unknown>
  } catch {
    throw pluginException('PluginServerError', `${config.provider} did not answer JSON${config.provider === 'searxng' ? ' (enable the json format in its settings.yml: search.formats)' : ''}.`)
  }
  const results = e
    .results(json)
    .filter((r) => /^https?:\/\//.test(r.url))
    .slice(0, count)
  const text = results.length
    ? results.map((r, i) => `[${i + 1}] ${r.title}\n${r.url}\n${r.snippet.slice(0, 1000)}`).join('\n\n')
    : `No results for ${JSON.stringify(query)}.`
  return { results, citations: results.map((r) => ({ title: r.title, url: r.url })), text }
}
