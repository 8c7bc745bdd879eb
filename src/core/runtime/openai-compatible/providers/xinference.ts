import type { OpenAICompatibleConfig } from '../config'

/** Xinference: no key; its list carries `model_ability` and `context_length`. */
export const xinference: OpenAICompatibleConfig = {
  id: 'xinference',
  baseURL: 'http://localhost:9997/v1',
  keyless: true,
  embeddings: true,
  textToSpeech: true,
  speechToText: true,
  toFetchedModel(raw) {
    const abilities = Array.isArray(raw['model_ability']) ? (raw['model_ability'] as string[]) : []
    const type = abilities.includes('embed') ? 'embedding' : abilities.includes('audio') ? 'stt' : abilities.includes('text_to_image') ? 'image' : 'chat'
    return {
      id: String(raw['id']),
      displayName: typeof raw['model_name'] === 'string' ? (raw['model_name'] as string) : undefined,
      description: typeof raw['model_description'] === 'string' ? (raw['model_description'] as string) : undefined,
      type,
      contextWindowTokens: typeof raw['context_length'] === 'number' ? (raw['context_length'] as number) : undefined,
      functionCall: abilities.includes('tools'),
      reasoning: abilities.includes('reasoning'),
      vision: abilities.includes('vision')
    }
  }
}
