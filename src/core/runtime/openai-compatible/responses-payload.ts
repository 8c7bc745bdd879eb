import type { ChatContentPart, ChatRequest } from '../types'
import { isOpenAIReasoningModel } from './payload-rules'

type InputItem = Record<string, unknown>

function contentParts(content: string | ChatContentPart[] | null, role: string): unknown {
  if (content === null) return ''
  if (typeof content === 'string') return content
  const textType = role === 'assistant' ? 'output_text' : 'input_text'
  return content.map((part) => (part.type === 'text' ? { type: textType, text: part.text } : { type: 'input_image', image_url: part.image_url.url }))
}

/**
 * Chat request → Responses API body (providers.md §7: `store: false`, so nothing is kept
 * server-side). System turns become developer turns; tool calls and results become
 * function_call / function_call_output items.
 */
export function buildResponsesBody(request: ChatRequest): Record<string, unknown> {
  const input: InputItem[] = []
  // Images a tool returned go in one user turn after the run of results (the output is text).
  let toolImages: InputItem[] = []
  const flushImages = () => {
    if (toolImages.length) input.push({ role: 'user', content: [{ type: 'input_text', text: 'The images the tool calls above returned:' }, ...toolImages] })
    toolImages = []
  }
  const native = request.nativeTools?.api === 'openai-responses'
  for (const m of request.messages) {
    if (native && m.native?.api === 'openai-responses') {
      // Built-in tool calls a client sent back (web_search_call …): in their place, as they are.
      flushImages()
      if (m.content) input.push({ role: 'assistant', content: contentParts(m.content, 'assistant') })
      for (const item of m.native.blocks) input.push({ ...item })
      for (const call of m.tool_calls ?? []) input.push({ type: 'function_call', call_id: call.id, name: call.function.name, arguments: call.function.arguments })
      continue
    }
    if (m.role === 'tool') {
      const parts = Array.isArray(m.content) ? m.content : undefined
      for (const p of parts ?? []) if (p.type === 'image_url') toolImages.push({ type: 'input_image', image_url: p.image_url.url })
      const output = parts ? parts.map((p) => (p.type === 'text' ? p.text : '')).filter(Boolean).join('\n') : (m.content ?? '')
      input.push({ type: 'function_call_output', call_id: m.tool_call_id ?? '', output })
      continue
    }
    flushImages()
    if (m.role === 'assistant' && m.tool_calls?.length) {
      if (m.content) input.push({ role: 'assistant', content: contentParts(m.content, 'assistant') })
      for (const call of m.tool_calls) input.push({ type: 'function_call', call_id: call.id, name: call.function.name, arguments: call.function.arguments })
      continue
    }
    const role = m.role === 'system' ? 'developer' : m.role === 'function' ? 'user' : m.role
    input.push({ role, content: contentParts(m.content, role) })
  }
  flushImages()
  const body: Record<string, unknown> = { model: request.model, input, stream: request.stream !== false, store: false }
  const reasoningModel = isOpenAIReasoningModel(request.model)
  if (!reasoningModel) {
    if (request.temperature !== undefined) body['temperature'] = request.temperature
    if (request.top_p !== undefined) body['top_p'] = request.top_p
  }
  if (request.max_tokens !== undefined) body['max_output_tokens'] = request.max_tokens
  if (reasoningModel) body['reasoning'] = { ...(request.reasoning_effort ? { effort: request.reasoning_effort } : {}), summary: 'auto' }
  if (request.verbosity) body['text'] = { verbosity: request.verbosity }
  const tools: Array<Record<string, unknown>> = (request.tools ?? []).map((t) => ({ type: 'function', name: t.function.name, description: t.function.description, parameters: t.function.parameters ?? { type: 'object', properties: {} } }))
  if (native) tools.push(...request.nativeTools!.tools.map((t) => ({ ...t })))
  if (tools.length) body['tools'] = tools
  if (request.user) body['user'] = request.user
  return body
}
