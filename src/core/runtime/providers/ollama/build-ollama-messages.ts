import type { Message, Tool } from 'ollama'
import type { ChatMessage, ChatTool } from '../../types'

const DATA_URL = /^data:[^;,]+;base64,(.*)$/s

/** Ollama wants images as bare base64; http(s) images are fetched here, in the core. */
async function imageBase64(url: string, fetchImpl: typeof fetch): Promise<string> {
  const data = DATA_URL.exec(url)
  if (data) return data[1]!
  const response = await fetchImpl(url)
  if (!response.ok) throw new Error(`Failed to fetch image (${response.status})`)
  return Buffer.from(await response.arrayBuffer()).toString('base64')
}

function parseArguments(args: string): Record<string, unknown> {
  try {
    const value = JSON.parse(args || '{}') as unknown
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { value }
  } catch {
    // Tool arguments the model wrote as broken JSON are passed on as text, not dropped.
    return { input: args }
  }
}

/** Chat messages → Ollama messages: text joined, images inlined, tool calls and results kept. */
export async function toOllamaMessages(messages: ChatMessage[], fetchImpl: typeof fetch = fetch): Promise<Message[]> {
  const toolNames = new Map<string, string>()
  const out: Message[] = []
  for (const message of messages) {
    const role = message.role === 'developer' ? 'system' : message.role === 'function' ? 'tool' : message.role
    let content = ''
    const images: string[] = []
    if (typeof message.content === 'string') content = message.content
    else if (Array.isArray(message.content)) {
      const texts: string[] = []
      for (const part of message.content) {
        if (part.type === 'text') texts.push(part.text)
        else images.push(await imageBase64(part.image_url.url, fetchImpl))
      }
      content = texts.join('\n')
    }
    const converted: Message = { role, content }
    if (images.length) converted.images = images
    if (message.role === 'assistant' && message.reasoning_content) converted.thinking = message.reasoning_content
    if (message.tool_calls?.length) {
      converted.tool_calls = message.tool_calls.map((call) => {
        toolNames.set(call.id, call.function.name)
        return { function: { name: call.function.name, arguments: parseArguments(call.function.arguments) } }
      })
    }
    if (role === 'tool') {
      const name = (message.tool_call_id && toolNames.get(message.tool_call_id)) || message.name
      if (name) converted.tool_name = name
    }
    out.push(converted)
  }
  return out
}

export const toOllamaTools = (tools: ChatTool[] | undefined): Tool[] | undefined =>
  tools?.length ? tools.map((tool) => ({ type: 'function', function: { name: tool.function.name, description: tool.function.description, parameters: tool.function.parameters as Tool['function']['parameters'] } })) : undefined
