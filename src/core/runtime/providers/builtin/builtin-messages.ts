import { AppErrorException } from '../../../../shared/errors/app-error'
import type { EngineFunctionCall, EngineHistoryItem } from '../../../engine/protocol'
import { runtimeError } from '../../runtime-error'
import type { ChatContentPart, ChatMessage } from '../../types'

const textOf = (content: string | ChatContentPart[] | null): string => {
  if (content === null) return ''
  if (typeof content === 'string') return content
  return content.map((p) => (p.type === 'text' ? p.text : '')).join('')
}

const parseArguments = (text: string): unknown => {
  try {
    return JSON.parse(text || '{}')
  } catch {
    return text
  }
}

/**
 * OpenAI-shaped messages → the engine's chat history. Tool calls of an assistant turn become
 * function calls carrying the results of the tool turns that answer them, which is how the
 * engine's chat wrappers render a tool round trip. The history ends with the model turn to
 * generate: an empty one, or the last assistant turn when it is being continued (after tool results).
 */
export function toEngineHistory(messages: ChatMessage[], provider: string): EngineHistoryItem[] {
  const history: EngineHistoryItem[] = []
  const results = new Map<string, unknown>()
  for (const m of messages) if (m.role === 'tool' && m.tool_call_id) results.set(m.tool_call_id, textOf(m.content))
  for (const m of messages) {
    if (Array.isArray(m.content) && m.content.some((p) => p.type === 'image_url')) {
      throw new AppErrorException(runtimeError('CapabilityNotSupported', 'The built-in engine reads text only: its llama.cpp binding (node-llama-cpp 3.21.1) has no image input, so an image cannot reach a model even when it has a vision projector (mmproj) beside it. Remove the image, or choose a vision model from another provider (Ollama, LM Studio or a cloud model).', provider))
    }
    switch (m.role) {
      case 'system':
      case 'developer':
        history.push({ type: 'system', text: textOf(m.content) })
        break
      case 'user':
        history.push({ type: 'user', text: textOf(m.content) })
        break
      case 'assistant': {
        const response: Extract<EngineHistoryItem, { type: 'model' }>['response'] = []
        if (m.reasoning_content) response.push({ type: 'segment', segmentType: 'thought', text: m.reasoning_content, ended: true })
        const text = textOf(m.content)
        if (text) response.push(text)
        m.tool_calls?.forEach((call, i) => {
          const fc: EngineFunctionCall = { type: 'functionCall', name: call.function.name, params: parseArguments(call.function.arguments), result: results.get(call.id) ?? '' }
          if (i === 0) fc.startsNewChunk = true
          response.push(fc)
        })
        history.push({ type: 'model', response })
        break
      }
      case 'tool':
      case 'function':
        // Carried by the function call it answers (above).
        break
    }
  }
  const last = history.at(-1)
  const continuing = last?.type === 'model' && last.response.some((r) => typeof r === 'object' && r.type === 'functionCall')
  if (!continuing) history.push({ type: 'model', response: [] })
  return history
}
