import type { ChatMessage, ChatRequest } from '../../types'

/** Ollama's own default window: what a request gets when it does not ask for more. */
export const OLLAMA_DEFAULT_NUM_CTX = 4096
/** The bounds num_ctx is held to (providers.md: 2048..128000), whatever was asked. */
export const MIN_NUM_CTX = 2048
export const MAX_NUM_CTX = 128_000
const clampNumCtx = (n: number) => Math.min(MAX_NUM_CTX, Math.max(MIN_NUM_CTX, Math.floor(n)))
/** Room kept for the reply when the request sets no max_tokens. */
export const DEFAULT_OUTPUT_RESERVE = 2048
const IMAGE_TOKENS = 768
const STEP = 1024

/**
 * A cheap, deliberately generous token estimate: ASCII runs at ~4 characters a token,
 * other scripts (CJK…) at about one character a token. Overestimating costs a little
 * memory; underestimating makes Ollama drop the start of the conversation silently.
 */
export function estimateTokens(text: string): number {
  let ascii = 0
  let other = 0
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) < 128) ascii++
    else other++
  }
  return Math.ceil(ascii / 4) + other
}

function messageTokens(message: ChatMessage): number {
  let tokens = 4
  if (typeof message.content === 'string') tokens += estimateTokens(message.content)
  else if (Array.isArray(message.content)) {
    for (const part of message.content) tokens += part.type === 'text' ? estimateTokens(part.text) : IMAGE_TOKENS
  }
  for (const call of message.tool_calls ?? []) tokens += estimateTokens(call.function.name + call.function.arguments)
  if (message.reasoning_content) tokens += estimateTokens(message.reasoning_content)
  return tokens
}

export function estimatePromptTokens(request: Pick<ChatRequest, 'messages' | 'tools'>): number {
  let tokens = 0
  for (const message of request.messages) tokens += messageTokens(message)
  if (request.tools?.length) tokens += estimateTokens(JSON.stringify(request.tools))
  return tokens
}

export interface NumCtxInput {
  request: Pick<ChatRequest, 'messages' | 'tools' | 'max_tokens'>
  /** The model's context window from /api/show, when known. */
  contextWindow?: number
  /** The user's per-model setting: wins over everything. */
  override?: number
}

/**
 * num_ctx so the conversation fits: at least the prompt estimate plus the reply's room,
 * rounded up to a 1K step, never below Ollama's default and never above the model's window;
 * always within 2048..128000.
 */
export function chooseNumCtx({ request, contextWindow, override }: NumCtxInput): number {
  if (override && override > 0) return clampNumCtx(override)
  const output = request.max_tokens && request.max_tokens > 0 ? request.max_tokens : DEFAULT_OUTPUT_RESERVE
  const needed = Math.ceil((estimatePromptTokens(request) + output) / STEP) * STEP
  const wanted = Math.max(OLLAMA_DEFAULT_NUM_CTX, needed)
  return clampNumCtx(contextWindow && contextWindow > 0 ? Math.min(wanted, contextWindow) : wanted)
}
