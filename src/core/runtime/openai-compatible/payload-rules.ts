import type { ChatMessage, ChatRequest, ReasoningEffort } from '../types'

/**
 * Request-shaping rules of providers.md §5 as small pure functions, shared by the provider
 * configs (and by native adapters such as Azure). Each takes the wire body and changes it.
 */

export interface WireMessage {
  role: string
  content: unknown
  name?: string
  tool_calls?: Array<{ id: string; type: string; function: { name: string; arguments: string } }>
  tool_call_id?: string
  reasoning_content?: string
}

/** The chat-completions body as sent; providers add their own fields. */
export interface ChatBody {
  model: string
  messages: WireMessage[]
  stream: boolean
  temperature?: number
  top_p?: number
  max_tokens?: number
  max_completion_tokens?: number
  frequency_penalty?: number
  presence_penalty?: number
  tools?: unknown[]
  reasoning_effort?: string
  verbosity?: string
  stream_options?: { include_usage: boolean }
  user?: string
  [extra: string]: unknown
}

const defined = (v: unknown): boolean => v !== undefined && v !== null

export function toWireMessages(messages: readonly ChatMessage[]): WireMessage[] {
  const out: WireMessage[] = []
  // Chat Completions takes only text in a tool message: the images tool calls returned go in
  // one user turn right after the run of tool messages (a user turn between them is refused).
  let toolImages: { type: 'image_url'; image_url: { url: string } }[] = []
  const flushImages = () => {
    if (!toolImages.length) return
    out.push({ role: 'user', content: [{ type: 'text', text: 'The images the tool calls above returned:' }, ...toolImages] })
    toolImages = []
  }
  for (const m of messages) {
    if (m.role !== 'tool') flushImages()
    // A caching breakpoint is Anthropic's; Chat Completions servers would refuse the field.
    let content: unknown = Array.isArray(m.content) && m.content.some((p) => p.type === 'text' && p.cache_control) ? m.content.map((p) => (p.type === 'text' ? { type: 'text', text: p.text } : p)) : m.content
    if (m.role === 'tool' && Array.isArray(m.content)) {
      content = m.content.map((p) => (p.type === 'text' ? p.text : '')).filter(Boolean).join('\n')
      for (const p of m.content) if (p.type === 'image_url') toolImages.push({ type: 'image_url', image_url: { url: p.image_url.url } })
    }
    const wire: WireMessage = { role: m.role, content }
    if (m.name) wire.name = m.name
    if (m.tool_calls?.length) wire.tool_calls = m.tool_calls.map((c) => ({ id: c.id, type: c.type || 'function', function: { name: c.function.name, arguments: c.function.arguments } }))
    if (m.tool_call_id) wire.tool_call_id = m.tool_call_id
    out.push(wire)
  }
  flushImages()
  return out
}

/** The common body: every field the request sets, nothing it does not; usage requested in the stream. */
export function baseChatBody(request: ChatRequest): ChatBody {
  const stream = request.stream !== false
  const body: ChatBody = { model: request.model, messages: toWireMessages(request.messages), stream }
  if (stream) body.stream_options = { include_usage: true }
  if (defined(request.temperature)) body.temperature = request.temperature
  if (defined(request.top_p)) body.top_p = request.top_p
  if (defined(request.max_tokens)) body.max_tokens = request.max_tokens
  if (defined(request.frequency_penalty)) body.frequency_penalty = request.frequency_penalty
  if (defined(request.presence_penalty)) body.presence_penalty = request.presence_penalty
  if (request.tools?.length) body.tools = request.tools.some((t) => t.cache_control) ? request.tools.map(({ cache_control: _cache, ...tool }) => tool) : request.tools
  if (request.tools?.length && request.tool_choice) body['tool_choice'] = request.tool_choice
  if (request.response_format) body['response_format'] = request.response_format
  if (request.reasoning_effort) body.reasoning_effort = request.reasoning_effort
  if (request.verbosity) body.verbosity = request.verbosity
  if (request.stop?.length) body['stop'] = request.stop
  if (request.user) body.user = request.user
  // Only a runtime that takes them is given these (chatTakes); the model's own token ids, as sent.
  if (request.logit_bias && Object.keys(request.logit_bias).length > 0) body['logit_bias'] = request.logit_bias
  if (request.logprobs) body['logprobs'] = true
  if (request.logprobs && request.top_logprobs) body['top_logprobs'] = request.top_logprobs
  return body
}

export const clamp = (value: number, min: number, max: number): number => Math.min(max, Math.max(min, value))

/** Temperature halved (providers whose scale is 0..1 for the UI's 0..2). */
export function halveTemperature(body: ChatBody, min?: number): void {
  if (typeof body.temperature !== 'number') return
  body.temperature = body.temperature / 2
  if (min !== undefined) body.temperature = Math.max(min, body.temperature)
}

/** Removes `key` unless `keep(value)` holds. */
export function keepOnly(body: ChatBody, key: keyof ChatBody & string, keep: (value: number) => boolean): void {
  const value = body[key]
  if (value === undefined) return
  if (typeof value !== 'number' || !keep(value)) delete body[key]
}

// ---------------------------------------------------------------- OpenAI reasoning models

/** o-series and GPT-5 reasoning models: no sampling parameters, a developer role. */
export function isOpenAIReasoningModel(model: string): boolean {
  const id = model.toLowerCase().replace(/^.*\//, '')
  if (/^o\d/.test(id)) return true
  return id.startsWith('gpt-5') && !id.startsWith('gpt-5-chat')
}

/** Early reasoning models accept neither system nor developer messages; their system text is sent as user. */
export function needsUserRoleForSystem(model: string): boolean {
  const id = model.toLowerCase().replace(/^.*\//, '')
  return id.startsWith('o1-mini') || id.startsWith('o1-preview')
}

/** providers.md §5: system → developer (or user for the named models); temperature and top_p removed. */
export function applyOpenAIReasoningRules(body: ChatBody): void {
  if (!isOpenAIReasoningModel(body.model)) return
  const role = needsUserRoleForSystem(body.model) ? 'user' : 'developer'
  body.messages = body.messages.map((m) => (m.role === 'system' ? { ...m, role } : m))
  delete body.temperature
  delete body.top_p
  delete body.frequency_penalty
  delete body.presence_penalty
  if (body.max_tokens !== undefined) {
    body.max_completion_tokens = body.max_tokens
    delete body.max_tokens
  }
}

/** Azure has no 'minimal' effort: it becomes 'low'. */
export function azureReasoningEffort(effort: ReasoningEffort | string | undefined): string | undefined {
  return effort === 'minimal' ? 'low' : effort
}

// ---------------------------------------------------------------- thinking budgets

/** SiliconCloud: 1..32768, 0 becomes 1. */
export const siliconCloudThinkingBudget = (budget: number): number => clamp(Math.round(budget) || 1, 1, 32768)

/** OpenRouter: min(budget, (max tokens or model max output or 32000) − 1); 1024 when no budget. */
export function openRouterReasoningMaxTokens(budget: number | undefined, maxTokens: number | undefined, modelMaxOutput: number | undefined): number {
  const ceiling = (maxTokens ?? modelMaxOutput ?? 32000) - 1
  return Math.min(budget ?? 1024, ceiling)
}

// ---------------------------------------------------------------- thinking enablement

const VOLCENGINE_THINKING = ['thinking-vision-pro', 'thinking-pro-m', 'doubao-seed-1-6', 'doubao-1-5-ui-tars']
export const volcengineSupportsThinking = (model: string): boolean => VOLCENGINE_THINKING.some((k) => model.includes(k))

export const qwenSupportsThinking = (model: string): boolean =>
  model.includes('-thinking') || model.startsWith('qwen3') || model.startsWith('qwen-turbo') || model.startsWith('qwen-plus')

// ---------------------------------------------------------------- web search

/** xAI live search: results 1..30, default 15. */
export const xaiMaxSearchResults = (value: number | undefined): number => clamp(Math.round(value ?? 15), 1, 30)

/**
 * top_p as MiniMax, Cohere and Hugging Face (TGI) take it (providers.md §5): dropped unless in
 * range (0 < top_p ≤ 1), then clamped into 0.01..0.99 because they reject exactly 1. A top_p of
 * 0 is dropped (the server's default), not sent as 0.01.
 */
export function topPInsideUnit(body: ChatBody): void {
  keepOnly(body, 'top_p', (p) => p > 0 && p <= 1)
  if (typeof body.top_p === 'number') body.top_p = clamp(body.top_p, 0.01, 0.99)
}
