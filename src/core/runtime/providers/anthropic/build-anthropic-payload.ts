import type { ChatContentPart, ChatMessage, ChatRequest } from '../../types'
import { CLAUDE_DEFAULT_THINKING_BUDGET, CLAUDE_THINKING_MAX_TOKENS, canonicalClaudeId, defaultClaudeMaxTokens } from './anthropic-models'

/**
 * An assistant turn may carry the reasoning we streamed earlier, with Anthropic's signature;
 * thinking blocks must go back verbatim for multi-turn thinking with tools to work.
 */
export type AnthropicChatMessage = ChatMessage & {
  reasoning?: { content: string; signature?: string; redacted?: boolean }
}

export interface AnthropicPayloadOptions {
  /** Cache type for prompt caching; Anthropic's only type is ephemeral. */
  cacheControl?: { type: 'ephemeral'; ttl?: '5m' | '1h' }
  /** Web search tool (server side) when the request enables search. */
  webSearchMaxUses?: number
  /** Overrides the built-in max-output table (e.g. from the catalogue). */
  maxOutput?: number
  /**
   * System turns after the first user or assistant turn stay where they are (Anthropic's own
   * API takes them); otherwise they are folded into the system prompt.
   */
  systemInMessages?: boolean
  /**
   * Anthropic's own runtime: a request's server tools (`nativeTools`) and an assistant turn's
   * blocks as its client sent them (`native`) go unchanged. Off for Bedrock, which has neither.
   */
  nativeBlocks?: boolean
}

type Block = Record<string, unknown>
type Message = { role: 'user' | 'assistant' | 'system'; content: Block[] }

function parseDataUrl(url: string): { media_type: string; data: string } | undefined {
  const match = /^data:([^;]+);base64,(.*)$/s.exec(url)
  return match ? { media_type: match[1]!, data: match[2]! } : undefined
}

function contentBlocks(content: ChatMessage['content']): Block[] {
  if (content === null || content === undefined) return []
  if (typeof content === 'string') return content ? [{ type: 'text', text: content }] : []
  return content.map((part: ChatContentPart): Block => {
    if (part.type === 'text') return { type: 'text', text: part.text, ...(part.cache_control ? { cache_control: { ...part.cache_control } } : {}) }
    const inline = parseDataUrl(part.image_url.url)
    return inline
      ? { type: 'image', source: { type: 'base64', ...inline } }
      : { type: 'image', source: { type: 'url', url: part.image_url.url } }
  })
}

const textOf = (content: ChatMessage['content']): string =>
  typeof content === 'string' ? content : (content ?? []).map((p) => (p.type === 'text' ? p.text : '')).join('')

function parseArguments(args: string): unknown {
  try {
    return args ? JSON.parse(args) : {}
  } catch {
    // Broken tool-call JSON from an earlier turn: tool_use.input must be an object, an empty one keeps the history valid.
    return {}
  }
}

/** A request whose client placed its own caching breakpoints: they are kept, and none are added. */
export function hasClientCacheControl(request: Pick<ChatRequest, 'messages' | 'tools'>): boolean {
  return (
    request.messages.some((m) => m.cache_control || (Array.isArray(m.content) && m.content.some((p) => p.type === 'text' && p.cache_control))) ||
    (request.tools ?? []).some((t) => t.cache_control)
  )
}

/**
 * OpenAI-shaped history → Anthropic messages; consecutive same-role turns are merged. The
 * system prompt stays a list of blocks (each with the breakpoint its client gave it).
 */
export function toAnthropicMessages(messages: AnthropicChatMessage[], options: Pick<AnthropicPayloadOptions, 'systemInMessages' | 'nativeBlocks'> = {}): { system?: Block[]; messages: Message[] } {
  const system: Block[] = []
  const out: Message[] = []
  const pushTurn = (role: Message['role'], content: Block[]) => {
    if (content.length === 0) return
    const last = out[out.length - 1]
    if (last && last.role === role) last.content.push(...content)
    else out.push({ role, content })
  }
  for (const m of messages) {
    switch (m.role) {
      case 'system':
      case 'developer': {
        const blocks = Array.isArray(m.content) ? contentBlocks(m.content).filter((b) => b.type === 'text') : contentBlocks(m.content)
        if (options.systemInMessages && out.length > 0) pushTurn('system', blocks)
        else system.push(...blocks)
        break
      }
      case 'tool':
      case 'function':
        // A tool result may carry images (models with vision): Anthropic takes them inside the result.
        pushTurn('user', [
          {
            type: 'tool_result',
            tool_use_id: m.tool_call_id ?? m.name ?? '',
            content: Array.isArray(m.content) ? contentBlocks(m.content) : textOf(m.content),
            ...(m.cache_control ? { cache_control: { ...m.cache_control } } : {})
          }
        ])
        break
      case 'assistant': {
        if (options.nativeBlocks && m.native?.api === 'anthropic-messages') {
          // Server tool calls and their results sit between text and tool calls: the turn goes as sent.
          pushTurn('assistant', m.native.blocks.map((b) => ({ ...b })))
          break
        }
        const blocks: Block[] = []
        if (m.reasoning?.redacted && m.reasoning.signature) blocks.push({ type: 'redacted_thinking', data: m.reasoning.signature })
        else if (m.reasoning?.signature) blocks.push({ type: 'thinking', thinking: m.reasoning.content, signature: m.reasoning.signature })
        blocks.push(...contentBlocks(m.content))
        for (const call of m.tool_calls ?? []) {
          blocks.push({ type: 'tool_use', id: call.id, name: call.function.name, input: parseArguments(call.function.arguments) })
        }
        pushTurn('assistant', blocks)
        break
      }
      default:
        pushTurn('user', contentBlocks(m.content))
    }
  }
  const prompt = system.filter((b) => b.text)
  return prompt.length ? { system: prompt, messages: out } : { messages: out }
}

/** Claude takes temperature in 0..1; our scale is OpenAI's 0..2 (providers.md §5). */
const halve = (t: number | undefined) => (t === undefined ? undefined : t / 2)

/**
 * Builds the Messages API body for a chat request (also the Bedrock Claude body, which
 * differs only in `anthropic_version` and the model living in the URL).
 */
export function buildAnthropicPayload(request: ChatRequest & { messages: AnthropicChatMessage[] }, options: AnthropicPayloadOptions = {}) {
  const { system, messages } = toAnthropicMessages(request.messages, options)
  const model = request.model
  const thinking = request.thinking?.type === 'enabled'
  const adaptive = request.thinking?.type === 'adaptive'
  const modelMax = options.maxOutput ?? defaultClaudeMaxTokens(model)
  const maxTokens = request.max_tokens ?? (thinking ? Math.min(CLAUDE_THINKING_MAX_TOKENS, modelMax) : modelMax)
  // A client that placed its own breakpoints (the local API) gets exactly those: Anthropic takes
  // at most four, and their places and lifetimes are the client's choice.
  const clientCache = hasClientCacheControl(request)
  const caching = request.enabledContextCaching !== false && !clientCache
  const cacheControl = options.cacheControl ?? { type: 'ephemeral' as const }

  const body: Record<string, unknown> = { model, max_tokens: maxTokens, messages }

  if (system) {
    if (clientCache) body.system = system
    else {
      // One block, as the app has always sent it: the whole prompt is one cache prefix.
      const text = system.map((b) => b.text as string).join('\n\n')
      body.system = [{ type: 'text', text, ...(caching ? { cache_control: cacheControl } : {}) }]
    }
  }

  // Prompt caching: mark the last block of the latest user turn so the whole prefix is cached.
  if (caching) {
    const lastUser = [...messages].reverse().find((m) => m.role === 'user')
    const lastBlock = lastUser?.content[lastUser.content.length - 1]
    if (lastBlock && lastBlock.type !== 'thinking' && lastBlock.type !== 'redacted_thinking') lastBlock.cache_control = cacheControl
  }

  const tools: Block[] = (request.tools ?? []).map((t) => ({
    name: t.function.name,
    description: t.function.description ?? '',
    input_schema: t.function.parameters ?? { type: 'object', properties: {} },
    ...(t.cache_control ? { cache_control: { ...t.cache_control } } : {})
  }))
  if (caching && tools.length) tools[tools.length - 1]!.cache_control = cacheControl
  if (request.enabledSearch) {
    const maxUses = request.searchMaxUses ?? options.webSearchMaxUses
    tools.push({ type: 'web_search_20250305', name: 'web_search', ...(maxUses ? { max_uses: maxUses } : {}) })
  }
  if (options.nativeBlocks && request.nativeTools?.api === 'anthropic-messages') tools.push(...request.nativeTools.tools.map((t) => ({ ...t })))
  if (tools.length) body.tools = tools

  if (thinking) {
    // The budget must stay below max_tokens; Anthropic rejects temperature/top_p with thinking.
    const budget = Math.min(request.thinking?.budget_tokens ?? CLAUDE_DEFAULT_THINKING_BUDGET, maxTokens - 1)
    body.thinking = { type: 'enabled', budget_tokens: budget }
  } else if (adaptive) {
    // The model decides how much to think; sampling parameters are refused with thinking on.
    body.thinking = { type: 'adaptive' }
  } else if (canonicalClaudeId(model).startsWith('claude-opus-4-1')) {
    // Opus 4.1 rejects temperature and top_p together: temperature wins when both are set.
    if (request.temperature !== undefined) body.temperature = halve(request.temperature)
    else if (request.top_p !== undefined) body.top_p = request.top_p
  } else {
    if (request.temperature !== undefined) body.temperature = halve(request.temperature)
    if (request.top_p !== undefined) body.top_p = request.top_p
  }

  if (request.stop?.length) body.stop_sequences = request.stop
  if (request.user) body.metadata = { user_id: request.user }
  return body
}
