import type { FetchedModel } from '../../../../shared/catalogue/model-list'
import type { OpenAICompatibleConfig } from '../config'
import { applyOpenAIReasoningRules } from '../payload-rules'

interface GithubCatalogueModel {
  id: string
  name?: string
  summary?: string
  capabilities?: string[]
  limits?: { max_input_tokens?: number; max_output_tokens?: number }
  supported_input_modalities?: string[]
}

/** GitHub Models: OpenAI-style inference, a separate public catalogue for the list, 401 → InvalidGithubToken. */
export const github: OpenAICompatibleConfig = {
  id: 'github',
  baseURL: 'https://models.github.ai/inference',
  // A GitHub token, not an API key: the error names it so the fix is obvious.
  mapError: (facts) => (facts.status === 401 ? { errorType: 'InvalidGithubToken' } : undefined),
  chatPayload(body) {
    applyOpenAIReasoningRules(body)
    return body
  },
  async listModels({ baseURL, apiKey, fetch, options }) {
    const catalogue = new URL('../catalog/models', baseURL.endsWith('/') ? baseURL : `${baseURL}/`).toString()
    const response = await fetch(catalogue, { headers: { Authorization: `Bearer ${apiKey}`, Accept: 'application/json' }, signal: options.signal })
    if (!response.ok) throw Object.assign(new Error(`${response.status} ${await response.text()}`), { status: response.status })
    const rows = (await response.json()) as GithubCatalogueModel[]
    return rows.map(
      (m): FetchedModel => ({
        id: m.id,
        displayName: m.name,
        description: m.summary,
        contextWindowTokens: m.limits?.max_input_tokens !== undefined ? m.limits.max_input_tokens + (m.limits.max_output_tokens ?? 0) : undefined,
        maxOutput: m.limits?.max_output_tokens,
        functionCall: m.capabilities?.includes('tool-calling'),
        reasoning: m.capabilities?.includes('reasoning'),
        vision: m.supported_input_modalities?.includes('image')
      })
    )
  }
}
