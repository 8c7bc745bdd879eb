import type { FetchedModel } from '../../../../shared/catalogue/model-list'
import type { OpenAICompatibleConfig } from '../config'

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [])

/**
 * One entry of Xinference's `GET /v1/models`: `{ id, object: 'model', created, owned_by, ... }`
 * spread with the launched model's description. `model_type` says what it is (LLM, embedding,
 * rerank, image, audio, video); an LLM's `model_ability` says what it can do (generate, chat,
 * vision, tools, reasoning, audio input…), an audio model's whether it listens or speaks.
 * Undefined for what the app cannot use through Xinference: rerankers (the knowledge settings
 * name one by hand), image and video models, and completion-only LLMs, which Xinference refuses
 * on /v1/chat/completions.
 */
export function xinferenceModel(raw: Record<string, unknown>): FetchedModel | undefined {
  const ability = strings(raw['model_ability'])
  const kind = typeof raw['model_type'] === 'string' ? raw['model_type'].toLowerCase() : undefined
  const base = {
    id: String(raw['id']),
    ...(typeof raw['model_name'] === 'string' && raw['model_name'] !== raw['id'] ? { displayName: raw['model_name'] } : {}),
    ...(typeof raw['model_description'] === 'string' ? { description: raw['model_description'] } : {})
  }
  switch (kind) {
    case 'embedding':
      return { ...base, type: 'embedding', ...(typeof raw['max_tokens'] === 'number' ? { contextWindowTokens: raw['max_tokens'] } : {}) }
    case 'audio':
      return ability.includes('audio2text') ? { ...base, type: 'stt' } : ability.includes('text2audio') ? { ...base, type: 'tts' } : undefined
    // A server too old to say its model_type lists LLMs only.
    case 'llm':
    case undefined:
      if (ability.length > 0 && !ability.includes('chat')) return undefined
      return {
        ...base,
        type: 'chat',
        ...(typeof raw['context_length'] === 'number' ? { contextWindowTokens: raw['context_length'] } : {}),
        functionCall: ability.includes('tools'),
        reasoning: ability.includes('reasoning'),
        vision: ability.includes('vision')
      }
    default:
      return undefined
  }
}

/** Xinference: no key; its list is every launched model, typed by its own `model_type`. */
export const xinference: OpenAICompatibleConfig = {
  id: 'xinference',
  baseURL: 'http://localhost:9997/v1',
  keyless: true,
  embeddings: true,
  textToSpeech: true,
  speechToText: true,
  async listModels({ client, options }) {
    const page = await client.models.list({ signal: options.signal })
    return page.data.flatMap((raw) => xinferenceModel(raw as unknown as Record<string, unknown>) ?? [])
  }
}
