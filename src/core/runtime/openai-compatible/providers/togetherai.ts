import type { FetchedModel } from '../../../../shared/catalogue/model-list'
import type { OpenAICompatibleConfig } from '../config'

interface TogetherModel {
  name?: string
  id?: string
  display_name?: string
  display_type?: string
  description?: string
  context_length?: number
}

/** Together: the model list is a bare array under a different base path (/api/models). */
export const togetherai: OpenAICompatibleConfig = {
  id: 'togetherai',
  baseURL: 'https://api.together.xyz/v1',
  embeddings: true,
  async listModels({ baseURL, apiKey, fetch, options }) {
    const url = new URL('/api/models', baseURL).toString()
    const response = await fetch(url, { headers: { Authorization: `Bearer ${apiKey}` }, signal: options.signal })
    if (!response.ok) throw Object.assign(new Error(`${response.status} ${await response.text()}`), { status: response.status })
    const rows = (await response.json()) as TogetherModel[]
    return rows
      .filter((m) => (m.name ?? m.id) && (!m.display_type || m.display_type === 'chat' || m.display_type === 'language'))
      .map((m): FetchedModel => ({ id: (m.name ?? m.id)!, displayName: m.display_name, description: m.description, contextWindowTokens: m.context_length }))
  }
}
