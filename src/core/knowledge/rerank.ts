import { AppErrorException } from '../../shared/errors/app-error'

/** A rerank model chosen for a knowledge base. */
export interface RerankModel {
  providerId: string
  modelId: string
}

export interface RerankScore {
  /** Index into the documents sent. */
  index: number
  score: number
}

/** What a rerank call billed, as the provider reports it (Jina and SiliconCloud: tokens; Cohere: search units). */
export interface RerankUsage {
  totalTokens?: number
  searchUnits?: number
}

/** Re-scores documents for a query; best first. */
export type RerankFn = (model: RerankModel, query: string, documents: readonly string[], topN: number, signal?: AbortSignal) => Promise<RerankScore[]>

/**
 * Where a provider's rerank endpoint is. Jina, Cohere and SiliconCloud share the `/rerank` wire
 * format (`{ model, query, documents, top_n }` → `results[{ index, relevance_score }]`), but their
 * chat base addresses in the catalogue are not where rerank lives; a base address the user set
 * (a proxy, a local Xinference or vLLM, a test server) gets `/rerank` appended.
 */
const REHOSTED: Record<string, { chatBase: string; rerank: string }> = {
  jina: { chatBase: 'https://deepsearch.jina.ai/v1', rerank: 'https://api.jina.ai/v1/rerank' },
  cohere: { chatBase: 'https://api.cohere.ai/compatibility/v1', rerank: 'https://api.cohere.com/v2/rerank' },
  siliconcloud: { chatBase: 'https://api.siliconflow.cn/v1', rerank: 'https://api.siliconflow.cn/v1/rerank' }
}

export function rerankUrl(providerId: string, baseURL: string | undefined): string {
  const known = REHOSTED[providerId]
  const base = baseURL?.replace(/\/+$/, '')
  if (known && (!base || base === known.chatBase)) return known.rerank
  if (!base) throw new AppErrorException({ errorType: 'CapabilityNotSupported', status: 400, provider: providerId, message: `${providerId} has no rerank address; set its base address in Settings → Providers.` })
  return `${base}/rerank`
}

const MAX_RERANK_BYTES = 4 * 1024 * 1024

/** One rerank call in the shared wire format; the provider's key as a bearer token. */
export async function rerankDocuments(
  credentials: { apiKey?: string; baseURL?: string },
  model: RerankModel,
  query: string,
  documents: readonly string[],
  topN: number,
  options: { signal?: AbortSignal; fetch?: typeof fetch } = {}
): Promise<{ scores: RerankScore[]; usage?: RerankUsage }> {
  const url = rerankUrl(model.providerId, credentials.baseURL)
  const fail = (errorType: 'InvalidProviderAPIKey' | 'ProviderBizError' | 'UpstreamMalformedResponse', status: number, text: string) =>
    new AppErrorException({ errorType, status, provider: model.providerId, message: text })
  const response = await (options.fetch ?? fetch)(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...(credentials.apiKey ? { authorization: `Bearer ${credentials.apiKey}` } : {}) },
    body: JSON.stringify({ model: model.modelId, query, documents, top_n: Math.min(topN, documents.length), return_documents: false }),
    ...(options.signal ? { signal: options.signal } : {})
  })
  const text = await response.text()
  if (response.status === 401 || response.status === 403) throw fail('InvalidProviderAPIKey', response.status, `${model.providerId} refused the key for reranking (${response.status}).`)
  if (!response.ok) throw fail('ProviderBizError', 471, `${model.providerId} rerank answered ${response.status}: ${text.slice(0, 300)}`)
  if (text.length > MAX_RERANK_BYTES) throw fail('UpstreamMalformedResponse', 471, `${model.providerId} rerank answered more than 4 MB.`)
  let results: unknown
  let usage: RerankUsage | undefined
  try {
    const parsed = JSON.parse(text) as { results?: unknown; usage?: { total_tokens?: unknown }; meta?: { billed_units?: { search_units?: unknown } } }
    results = parsed.results
    usage = usageOf(parsed)
  } catch {
    throw fail('UpstreamMalformedResponse', 471, `${model.providerId} rerank did not answer JSON.`)
  }
  if (!Array.isArray(results)) throw fail('UpstreamMalformedResponse', 471, `${model.providerId} rerank answered without results.`)
  const seen = new Set<number>()
  const scores: RerankScore[] = []
  for (const r of results as Record<string, unknown>[]) {
    const index = r?.['index']
    const score = r?.['relevance_score'] ?? r?.['score']
    // An index outside what was sent, or twice, is ignored rather than trusted.
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= documents.length || seen.has(index) || typeof score !== 'number') continue
    seen.add(index)
    scores.push({ index, score })
  }
  return { scores: scores.sort((a, b) => b.score - a.score), ...(usage ? { usage } : {}) }
}

function usageOf(body: { usage?: { total_tokens?: unknown }; meta?: { billed_units?: { search_units?: unknown } } } | null): RerankUsage | undefined {
  const tokens = body?.usage?.total_tokens
  const units = body?.meta?.billed_units?.search_units
  const usage: RerankUsage = {
    ...(typeof tokens === 'number' && tokens >= 0 ? { totalTokens: tokens } : {}),
    ...(typeof units === 'number' && units >= 0 ? { searchUnits: units } : {})
  }
  return Object.keys(usage).length ? usage : undefined
}
