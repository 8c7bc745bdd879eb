import type { OpenAICompatibleConfig } from '../config'
import { keepOnly } from '../payload-rules'
import { openAIImagesHook } from '../../images/compatible-hooks'

/** SenseNova: frequency penalty (0, 2]; temperature (0, 2]; top_p (0, 1); max tokens > 0; models from the separate llm base. */
export const sensenova: OpenAICompatibleConfig = {
  id: 'sensenova',
  baseURL: 'https://token.sensenova.cn/v1',
  createImage: openAIImagesHook,
  chatPayload(body) {
    keepOnly(body, 'frequency_penalty', (v) => v > 0 && v <= 2)
    keepOnly(body, 'temperature', (v) => v > 0 && v <= 2)
    keepOnly(body, 'top_p', (v) => v > 0 && v < 1)
    keepOnly(body, 'max_tokens', (v) => v > 0)
    return body
  },
  async listModels({ baseURL, apiKey, fetch, options }) {
    // The model list lives on the llm API, not on the chat base.
    const listBase = baseURL.startsWith('https://token.sensenova.cn') ? 'https://api.sensenova.cn/v1/llm' : `${baseURL.replace(/\/+$/, '')}/llm`
    const response = await fetch(`${listBase}/models`, { headers: { Authorization: `Bearer ${apiKey}` }, signal: options.signal })
    if (!response.ok) throw Object.assign(new Error(`${response.status} ${await response.text()}`), { status: response.status })
    const json = (await response.json()) as { data?: Array<{ id: string }> }
    return (json.data ?? []).map((m) => ({ id: m.id }))
  }
}
