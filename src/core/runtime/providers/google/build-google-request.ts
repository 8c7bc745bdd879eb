import type { ChatContentPart, ChatMessage, ChatRequest } from '../../types'
import { clampThinkingBudget, supportsThinking } from './google-thinking-budget'

export interface GooglePartOut {
  text?: string
  thought?: boolean
  thoughtSignature?: string
  inlineData?: { mimeType: string; data: string }
  functionCall?: { id?: string; name: string; args: Record<string, unknown> }
  functionResponse?: { id?: string; name: string; response: Record<string, unknown> }
}
export interface GoogleContent {
  role: 'user' | 'model'
  parts: GooglePartOut[]
}

/** Fetches an image by URL into base64 (providers.md §7 "Image by URL"); data URLs are split. */
export type ImageLoader = (url: string) => Promise<{ mimeType: string; data: string }>

export const loadImageWith =
  (fetchImpl: typeof fetch): ImageLoader =>
  async (url) => {
    const inline = /^data:([^;]+);base64,(.*)$/s.exec(url)
    if (inline) return { mimeType: inline[1]!, data: inline[2]! }
    const response = await fetchImpl(url)
    if (!response.ok) throw new Error(`Failed to fetch image (${response.status})`)
    const mimeType = response.headers.get('content-type')?.split(';')[0] ?? 'image/png'
    return { mimeType, data: Buffer.from(await response.arrayBuffer()).toString('base64') }
  }

const textOf = (content: ChatMessage['content']): string =>
  typeof content === 'string' ? content : (content ?? []).map((p) => (p.type === 'text' ? p.text : '')).join('')

function parseArgs(args: string): Record<string, unknown> {
  try {
    const value: unknown = args ? JSON.parse(args) : {}
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { value }
  } catch {
    // Broken tool-call JSON from an earlier turn: Gemini needs an object, an empty one keeps the history valid.
    return {}
  }
}

async function partsOf(content: ChatMessage['content'], loadImage: ImageLoader): Promise<GooglePartOut[]> {
  if (content === null || content === undefined) return []
  if (typeof content === 'string') return content ? [{ text: content }] : []
  return Promise.all(
    content.map(async (part: ChatContentPart): Promise<GooglePartOut> => (part.type === 'text' ? { text: part.text } : { inlineData: await loadImage(part.image_url.url) }))
  )
}

/** OpenAI-shaped history → Gemini contents + system instruction; same-role turns are merged. */
export async function toGoogleContents(messages: ChatMessage[], loadImage: ImageLoader): Promise<{ systemInstruction?: string; contents: GoogleContent[] }> {
  const system: string[] = []
  const contents: GoogleContent[] = []
  const toolNames = new Map<string, string>()
  const push = (role: GoogleContent['role'], parts: GooglePartOut[]) => {
    if (parts.length === 0) return
    const last = contents[contents.length - 1]
    if (last && last.role === role) last.parts.push(...parts)
    else contents.push({ role, parts })
  }
  for (const m of messages) {
    if (m.role === 'system' || m.role === 'developer') {
      system.push(textOf(m.content))
    } else if (m.role === 'assistant') {
      const parts = await partsOf(m.content, loadImage)
      for (const call of m.tool_calls ?? []) {
        toolNames.set(call.id, call.function.name)
        parts.push({
          functionCall: { name: call.function.name, args: parseArgs(call.function.arguments) },
          // Gemini 3 rejects a function call sent back without the signature it came with.
          ...(call.thoughtSignature ? { thoughtSignature: call.thoughtSignature } : {})
        })
      }
      push('model', parts)
    } else if (m.role === 'tool' || m.role === 'function') {
      const name = (m.tool_call_id && toolNames.get(m.tool_call_id)) || m.name || 'tool'
      // Images a tool returned (models with vision) follow its response as inline parts.
      const images = Array.isArray(m.content) ? await partsOf(m.content.filter((p) => p.type === 'image_url'), loadImage) : []
      push('user', [{ functionResponse: { name, response: { result: textOf(m.content) } } }, ...images])
    } else {
      push('user', await partsOf(m.content, loadImage))
    }
  }
  const joined = system.filter(Boolean).join('\n\n')
  return joined ? { systemInstruction: joined, contents } : { contents }
}

/** The `config` of generateContentStream for a chat request. */
export function buildGoogleConfig(request: ChatRequest, systemInstruction?: string): Record<string, unknown> {
  const config: Record<string, unknown> = {}
  if (systemInstruction) config.systemInstruction = systemInstruction
  if (request.temperature !== undefined) config.temperature = request.temperature
  if (request.top_p !== undefined) config.topP = request.top_p
  if (request.stop?.length) config.stopSequences = request.stop
  if (request.max_tokens !== undefined) config.maxOutputTokens = request.max_tokens

  // Image-output models answer with text and images only when asked for both.
  const imageOutput = /-image(-|$)/.test(request.model)
  if (imageOutput) config.responseModalities = ['TEXT', 'IMAGE']

  if (supportsThinking(request.model) && !imageOutput) {
    const thinking: Record<string, unknown> = { includeThoughts: true }
    const wanted = request.thinking?.type === 'disabled' ? 0 : request.thinking?.budget_tokens
    const budget = clampThinkingBudget(request.model, wanted)
    if (budget !== undefined) thinking.thinkingBudget = budget
    if (budget === 0) thinking.includeThoughts = false
    config.thinkingConfig = thinking
  }

  const declarations = (request.tools ?? []).map((t) => ({
    name: t.function.name,
    description: t.function.description ?? '',
    ...(t.function.parameters && Object.keys((t.function.parameters.properties as object | undefined) ?? {}).length ? { parameters: t.function.parameters } : {})
  }))
  // Gemini serves either search grounding or function calling in one request: tools win.
  if (declarations.length) config.tools = [{ functionDeclarations: declarations }]
  else if (request.enabledSearch) config.tools = [{ googleSearch: {} }]
  return config
}
