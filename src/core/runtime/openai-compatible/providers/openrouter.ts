import type { FetchedModel } from '../../../../shared/catalogue/model-list'
import type { OpenAICompatibleConfig } from '../config'
import { openRouterReasoningMaxTokens } from '../payload-rules'

interface OpenRouterModel {
  id: string
  name?: string
  description?: string
  created?: number
  context_length?: number
  pricing?: { prompt?: string; completion?: string }
  top_provider?: { max_completion_tokens?: number | null }
  architecture?: { modality?: string; input_modalities?: string[] }
}

interface FrontendModel {
  slug: string
  endpoint?: { supports_reasoning?: boolean; supports_tool_parameters?: boolean } | null
}

/** OpenRouter quotes USD per token as text; '-1' means unknown. Per million, rounded to cents of a cent. */
export function perMillion(price: string | undefined): number | undefined {
  if (price === undefined || price === '-1') return undefined
  const value = Number(price)
  return Number.isFinite(value) && value >= 0 ? Number((value * 1_000_000).toFixed(4)) : undefined
}

export const OPENROUTER_FRONTEND_MODELS = 'https://openrouter.ai/api/frontend/models'

/**
 * OpenRouter: `:online` for web search; a reasoning budget capped below max tokens; the
 * model list joins /models with the public frontend list (tool and reasoning support),
 * whose failure is logged and ignored.
 */
export const openrouter: OpenAICompatibleConfig = {
  id: 'openrouter',
  baseURL: 'https://openrouter.ai/api/v1',
  wantsMaxOutput: true,
  chatPayload(body, request, ctx) {
    if (request.enabledSearch && !body.model.endsWith(':online')) body.model = `${body.model}:online`
    if (request.thinking?.type === 'enabled') {
      body.reasoning = { max_tokens: openRouterReasoningMaxTokens(request.thinking.budget_tokens, request.max_tokens, ctx.maxOutput) }
    }
    return body
  },
  async listModels({ baseURL, apiKey, fetch, options }) {
    const response = await fetch(`${baseURL.replace(/\/+$/, '')}/models`, { headers: { Authorization: `Bearer ${apiKey}` }, signal: options.signal })
    if (!response.ok) throw Object.assign(new Error(`${response.status} ${await response.text()}`), { status: response.status })
    const json = (await response.json()) as { data?: OpenRouterModel[] }
    const frontend = new Map<string, FrontendModel>()
    try {
      const frontendURL = baseURL.startsWith('https://openrouter.ai') ? OPENROUTER_FRONTEND_MODELS : new URL('/api/frontend/models', baseURL).toString()
      const res = await fetch(frontendURL, { signal: options.signal })
      if (res.ok) for (const m of ((await res.json()) as { data?: FrontendModel[] }).data ?? []) frontend.set(m.slug, m)
    } catch (error) {
      console.warn(`openrouter: frontend model list unavailable (${(error as Error).message}); tool and reasoning flags from the catalogue only`)
    }
    return (json.data ?? []).map((m): FetchedModel => {
      const front = frontend.get(m.id)
      return {
        id: m.id,
        displayName: m.name,
        description: m.description,
        created: m.created,
        contextWindowTokens: m.context_length,
        maxOutput: m.top_provider?.max_completion_tokens ?? undefined,
        functionCall: front?.endpoint?.supports_tool_parameters,
        reasoning: front?.endpoint?.supports_reasoning,
        vision: m.architecture?.input_modalities?.includes('image') ?? m.architecture?.modality?.split('->')[0]?.includes('image'),
        pricing: { input: perMillion(m.pricing?.prompt), output: perMillion(m.pricing?.completion), currency: 'USD' }
      }
    })
  }
}
