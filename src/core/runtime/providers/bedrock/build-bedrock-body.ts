import type { ChatMessage, ChatRequest } from '../../types'
import { buildAnthropicPayload, type AnthropicChatMessage } from '../anthropic/build-anthropic-payload'

export type BedrockFamily = 'claude' | 'llama'

/** Which request/stream format a Bedrock model id speaks (inference-profile prefixes allowed). */
export function bedrockFamily(modelId: string): BedrockFamily | undefined {
  const id = modelId.toLowerCase()
  if (id.includes('anthropic.claude')) return 'claude'
  if (id.includes('meta.llama')) return 'llama'
  return undefined
}

export const BEDROCK_CLAUDE_DEFAULT_MAX_TOKENS = 4096
export const BEDROCK_LLAMA_DEFAULT_MAX_GEN_LEN = 400

/** Claude on Bedrock: the Messages body without `model` (it is in the URL), default 4096 tokens. */
export function buildBedrockClaudeBody(request: ChatRequest & { messages: AnthropicChatMessage[] }): Record<string, unknown> {
  const thinking = request.thinking?.type === 'enabled'
  const payload = buildAnthropicPayload(
    {
      ...request,
      max_tokens: request.max_tokens ?? (thinking ? undefined : BEDROCK_CLAUDE_DEFAULT_MAX_TOKENS),
      // Only some Claude versions on Bedrock accept cache_control (older ones reject the
      // request), so caching is opt-in here rather than on by default as on Anthropic.
      enabledContextCaching: request.enabledContextCaching === true
    },
    { maxOutput: BEDROCK_CLAUDE_DEFAULT_MAX_TOKENS }
  )
  const { model: _model, ...body } = payload
  // Server tools (web search) do not exist on Bedrock.
  if (Array.isArray(body.tools)) {
    const tools = (body.tools as Array<Record<string, unknown>>).filter((t) => t.type === undefined)
    if (tools.length) body.tools = tools
    else delete body.tools
  }
  return { anthropic_version: 'bedrock-2023-05-31', ...body }
}

const textOf = (content: ChatMessage['content']): string =>
  typeof content === 'string' ? content : (content ?? []).map((p) => (p.type === 'text' ? p.text : '')).join('')

/** The Llama 3 chat template: Bedrock's Llama models take one prompt string. */
export function llamaPrompt(messages: ChatMessage[]): string {
  let prompt = '<|begin_of_text|>'
  for (const m of messages) {
    const role = m.role === 'developer' ? 'system' : m.role === 'tool' || m.role === 'function' ? 'ipython' : m.role
    prompt += `<|start_header_id|>${role}<|end_header_id|>\n\n${textOf(m.content)}<|eot_id|>`
  }
  return `${prompt}<|start_header_id|>assistant<|end_header_id|>\n\n`
}

/** Llama on Bedrock: prompt, max_gen_len (default 400), temperature halved, top_p. */
export function buildBedrockLlamaBody(request: ChatRequest): Record<string, unknown> {
  const body: Record<string, unknown> = {
    prompt: llamaPrompt(request.messages),
    max_gen_len: request.max_tokens ?? BEDROCK_LLAMA_DEFAULT_MAX_GEN_LEN
  }
  if (request.temperature !== undefined) body.temperature = request.temperature / 2
  if (request.top_p !== undefined) body.top_p = request.top_p
  return body
}
