import { z } from 'zod'
import type { ChatContentPart, ChatMessage, ChatRequest, ChatTool } from '../../runtime/types'
import type { StreamEvent, StopReason, TokenLogprob } from '../../../shared/stream/events'
import type { UsageRecord } from '../../../shared/stream/usage'
import { ToolCallAssembler } from './tool-call-assembler'
import { GatewayError } from '../gateway-error'

// OpenAI's Chat Completions API as clients send it. Unknown fields are ignored (clients add
// vendor fields freely); fields we cannot honour are refused by name rather than dropped.

const textPart = z.object({ type: z.literal('text'), text: z.string() })
const imagePart = z.object({ type: z.literal('image_url'), image_url: z.object({ url: z.string(), detail: z.enum(['auto', 'low', 'high']).optional() }) })
const contentSchema = z.union([z.string(), z.array(z.union([textPart, imagePart]))]).nullable().optional()
const toolCallSchema = z.object({ id: z.string(), type: z.string().default('function'), function: z.object({ name: z.string(), arguments: z.string() }) })

const messageSchema = z.object({
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool']),
  content: contentSchema,
  name: z.string().optional(),
  tool_calls: z.array(toolCallSchema).optional(),
  tool_call_id: z.string().optional(),
  reasoning_content: z.string().optional()
})

const toolSchema = z.object({
  type: z.literal('function'),
  function: z.object({ name: z.string().min(1).max(128), description: z.string().optional(), parameters: z.record(z.string(), z.unknown()).optional(), strict: z.boolean().optional() })
})

export const responseFormatSchema = z.union([
  z.object({ type: z.literal('text') }),
  z.object({ type: z.literal('json_object') }),
  z.object({
    type: z.literal('json_schema'),
    json_schema: z.object({ name: z.string(), schema: z.record(z.string(), z.unknown()).optional(), strict: z.boolean().nullable().optional(), description: z.string().optional() })
  })
])

export const chatCompletionSchema = z.object({
  model: z.string().min(1),
  messages: z.array(messageSchema).min(1),
  stream: z.boolean().nullable().optional(),
  stream_options: z.object({ include_usage: z.boolean().optional() }).nullable().optional(),
  temperature: z.number().min(0).max(2).nullable().optional(),
  top_p: z.number().min(0).max(1).nullable().optional(),
  max_tokens: z.number().int().positive().nullable().optional(),
  max_completion_tokens: z.number().int().positive().nullable().optional(),
  frequency_penalty: z.number().min(-2).max(2).nullable().optional(),
  presence_penalty: z.number().min(-2).max(2).nullable().optional(),
  tools: z.array(toolSchema).optional(),
  tool_choice: z.union([z.enum(['none', 'auto', 'required']), z.object({ type: z.literal('function'), function: z.object({ name: z.string() }) })]).optional(),
  response_format: responseFormatSchema.optional(),
  reasoning_effort: z.enum(['minimal', 'low', 'medium', 'high']).nullable().optional(),
  // OpenAI takes up to four stop sequences, as one string or a list.
  stop: z.union([z.string(), z.array(z.string()).max(4)]).nullable().optional(),
  n: z.number().int().nullable().optional(),
  logprobs: z.boolean().nullable().optional(),
  top_logprobs: z.number().int().min(0).max(20).nullable().optional(),
  logit_bias: z.record(z.string(), z.number()).nullable().optional(),
  user: z.string().optional()
})
export type ChatCompletionBody = z.infer<typeof chatCompletionSchema>

export function chatCompletionToRequest(body: ChatCompletionBody, modelId: string): ChatRequest {
  if (body.n !== undefined && body.n !== null && body.n !== 1) throw GatewayError.invalid('Only n = 1 is supported.', 'n')
  // Token biases and log-probabilities go to the runtime, which refuses them by name where its
  // backend cannot honour them (model-caller); only their shape is checked here.
  const bias = body.logit_bias && Object.keys(body.logit_bias).length > 0 ? checkedLogitBias(body.logit_bias) : undefined
  if (body.top_logprobs && !body.logprobs) throw GatewayError.invalid('top_logprobs needs logprobs: true.', 'top_logprobs')
  const messages: ChatMessage[] = body.messages.map((m) => {
    const message: ChatMessage = { role: m.role, content: m.content === undefined ? null : toParts(m.content) }
    if (m.name) message.name = m.name
    if (m.tool_calls?.length) message.tool_calls = m.tool_calls.map((c) => ({ id: c.id, type: c.type, function: { name: c.function.name, arguments: c.function.arguments } }))
    if (m.tool_call_id) message.tool_call_id = m.tool_call_id
    if (m.reasoning_content) message.reasoning_content = m.reasoning_content
    return message
  })
  const request: ChatRequest = { model: modelId, messages, stream: true }
  if (body.temperature != null) request.temperature = body.temperature
  if (body.top_p != null) request.top_p = body.top_p
  const maxTokens = body.max_completion_tokens ?? body.max_tokens
  if (maxTokens != null) request.max_tokens = maxTokens
  if (body.frequency_penalty != null) request.frequency_penalty = body.frequency_penalty
  if (body.presence_penalty != null) request.presence_penalty = body.presence_penalty
  if (body.reasoning_effort) request.reasoning_effort = body.reasoning_effort
  if (body.user) request.user = body.user
  const stop = typeof body.stop === 'string' ? [body.stop] : (body.stop ?? [])
  if (stop.length > 0) request.stop = stop
  if (body.tools?.length && body.tool_choice !== 'none') request.tools = body.tools.map(toChatTool)
  if (body.tool_choice && body.tool_choice !== 'none' && request.tools) request.tool_choice = body.tool_choice
  if (body.response_format && body.response_format.type !== 'text') request.response_format = body.response_format
  if (bias) request.logit_bias = bias
  if (body.logprobs) request.logprobs = true
  if (body.logprobs && body.top_logprobs) request.top_logprobs = body.top_logprobs
  return request
}

/** OpenAI's logit_bias: token ids (integer keys) → a bias from −100 to 100. */
function checkedLogitBias(bias: Record<string, number>): Record<string, number> {
  for (const [token, value] of Object.entries(bias)) {
    if (!/^\d+$/.test(token)) throw GatewayError.invalid(`logit_bias keys are token ids (non-negative integers); ${JSON.stringify(token)} is not one.`, 'logit_bias')
    if (!(value >= -100 && value <= 100)) throw GatewayError.invalid(`logit_bias values go from -100 to 100; the bias of token ${token} is ${value}.`, 'logit_bias')
  }
  return bias
}

function toParts(content: string | Array<z.infer<typeof textPart> | z.infer<typeof imagePart>> | null): string | ChatContentPart[] | null {
  if (content === null || typeof content === 'string') return content
  return content.map((p) => (p.type === 'text' ? { type: 'text', text: p.text } : { type: 'image_url', image_url: { url: p.image_url.url, ...(p.image_url.detail ? { detail: p.image_url.detail } : {}) } }))
}

const toChatTool = (t: z.infer<typeof toolSchema>): ChatTool => ({
  type: 'function',
  function: { name: t.function.name, ...(t.function.description ? { description: t.function.description } : {}), ...(t.function.parameters ? { parameters: t.function.parameters } : {}) }
})

export function finishReason(stop: StopReason | undefined): 'stop' | 'length' | 'tool_calls' | 'content_filter' {
  if (stop === 'length' || stop === 'tool_calls' || stop === 'content_filter') return stop
  return 'stop'
}

export function openAIUsage(usage: UsageRecord | undefined): { prompt_tokens: number; completion_tokens: number; total_tokens: number; prompt_tokens_details?: { cached_tokens: number }; completion_tokens_details?: { reasoning_tokens: number } } {
  const prompt = usage?.totalInputTokens ?? 0
  const completion = usage?.totalOutputTokens ?? 0
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: usage?.totalTokens ?? prompt + completion,
    ...(usage?.inputCachedTokens ? { prompt_tokens_details: { cached_tokens: usage.inputCachedTokens } } : {}),
    ...(usage?.outputReasoningTokens ? { completion_tokens_details: { reasoning_tokens: usage.outputReasoningTokens } } : {})
  }
}

/**
 * Turns runtime events into `chat.completion.chunk` JSON, in order. Text deltas (nearly every
 * chunk of a long reply) are written from a prepared prefix and suffix around the escaped text,
 * so a 200,000-chunk stream costs one string escape per chunk, not an object and a stringify.
 */
export class ChatCompletionChunks {
  private readonly tools = new ToolCallAssembler()
  private started = false
  private readonly head: string
  private readonly textPrefix: string
  private readonly textSuffix: string
  /** After the choices: `usage: null` on every chunk but the usage one when usage was asked for, as OpenAI writes them. */
  private readonly end: string
  /** The SSE message of a text event before and after its escaped text, as bytes. */
  readonly textOpen: Uint8Array
  readonly textClose: Uint8Array
  usage: UsageRecord | undefined
  stop: StopReason | undefined
  /** Log-probabilities of the text event to come (a runtime sends them just before it): written in its chunk. */
  private logprobs: TokenLogprob[] | undefined

  constructor(
    private readonly id: string,
    private readonly model: string,
    private readonly created: number,
    private readonly includeUsage = false
  ) {
    this.head = `{"id":${JSON.stringify(id)},"object":"chat.completion.chunk","created":${created},"model":${JSON.stringify(model)},"system_fingerprint":null,"choices":[`
    this.textPrefix = `${this.head}{"index":0,"delta":{"content":`
    this.end = includeUsage ? '],"usage":null}' : ']}'
    this.textSuffix = `,"logprobs":null,"finish_reason":null}${this.end}`
    this.textOpen = Buffer.from(`data: ${this.textPrefix}`)
    this.textClose = Buffer.from(`}${this.textSuffix}\n\n`)
  }

  private chunk(delta: Record<string, unknown>, finish: string | null = null, logprobs?: TokenLogprob[]): string {
    const probabilities = logprobs ? JSON.stringify({ content: logprobs, refusal: null }) : 'null'
    return `${this.head}{"index":0,"delta":${JSON.stringify(delta)},"logprobs":${probabilities},"finish_reason":${finish === null ? 'null' : JSON.stringify(finish)}}${this.end}`
  }

  /** Log-probabilities no text event took (the text went to reasoning, or none came): in a chunk of their own. */
  private pendingLogprobs(out: string[]): void {
    if (!this.logprobs) return
    if (!this.started) {
      this.started = true
      out.push(this.chunk({ role: 'assistant', content: '' }))
    }
    out.push(this.chunk({}, null, this.logprobs))
    this.logprobs = undefined
  }

  /**
   * The escaped text of a text event once the reply has started (nearly every event of a long
   * reply), without the array `push` returns; undefined for anything else. Its SSE message is
   * `textOpen`, this, `textClose` — the same bytes `push` gives it, written without building
   * a string per chunk.
   */
  textJson(event: StreamEvent): string | undefined {
    if (event.type !== 'text' || !this.started || !event.data || this.logprobs) return undefined
    return JSON.stringify(event.data)
  }

  /** The chunks (JSON text) an event becomes; none for events the API has no place for. */
  push(event: StreamEvent): string[] {
    const out: string[] = []
    const open = (): void => {
      if (this.started) return
      this.started = true
      out.push(this.chunk({ role: 'assistant', content: '' }))
    }
    if (event.type === 'logprobs') {
      this.logprobs = this.logprobs ? [...this.logprobs, ...event.data] : event.data
      return out
    }
    if (event.type === 'text' && event.data && this.logprobs) {
      open()
      out.push(this.chunk({ content: event.data }, null, this.logprobs))
      this.logprobs = undefined
      return out
    }
    if (event.type !== 'usage' && event.type !== 'stop') this.pendingLogprobs(out)
    switch (event.type) {
      case 'text':
        if (!event.data) break
        open()
        out.push(`${this.textPrefix}${JSON.stringify(event.data)}}${this.textSuffix}`)
        break
      case 'reasoning':
        if (!event.data) break
        open()
        // The field DeepSeek, vLLM and most OpenAI-compatible servers use for thinking text.
        out.push(this.chunk({ reasoning_content: event.data }))
        break
      case 'tool_calls': {
        open()
        const deltas = this.tools.add(event.data)
        if (deltas.length === 0) break
        out.push(
          this.chunk({
            tool_calls: deltas.map((d) =>
              d.opened ? { index: d.index, id: d.id, type: 'function', function: { name: d.name, arguments: d.argumentsDelta } } : { index: d.index, function: { arguments: d.argumentsDelta } }
            )
          })
        )
        break
      }
      case 'usage':
        this.usage = event.data
        break
      case 'stop':
        this.stop = event.data
        break
      default:
        break
    }
    return out
  }

  /** The closing chunks: the finish reason, then usage when the client asked for it. */
  finish(): string[] {
    const includeUsage = this.includeUsage
    const out: string[] = []
    if (!this.started) out.push(this.chunk({ role: 'assistant', content: '' }))
    this.pendingLogprobs(out)
    const reason = this.tools.size > 0 && (this.stop === undefined || this.stop === 'stop' || this.stop === 'tool_calls') ? 'tool_calls' : finishReason(this.stop)
    out.push(this.chunk({}, reason))
    if (includeUsage) out.push(`${this.head}],"usage":${JSON.stringify(openAIUsage(this.usage))}}`)
    return out
  }
}

/** Collects runtime events into one `chat.completion` object (a non-streamed answer). */
export class ChatCompletionCollector {
  private text = ''
  private reasoning = ''
  private readonly tools = new ToolCallAssembler()
  private logprobs: TokenLogprob[] | undefined
  usage: UsageRecord | undefined
  stop: StopReason | undefined

  push(event: StreamEvent): void {
    if (event.type === 'text') this.text += event.data
    else if (event.type === 'logprobs') (this.logprobs ??= []).push(...event.data)
    else if (event.type === 'reasoning') this.reasoning += event.data
    else if (event.type === 'tool_calls') this.tools.add(event.data)
    else if (event.type === 'usage') this.usage = event.data
    else if (event.type === 'stop') this.stop = event.data
  }

  result(id: string, model: string, created: number): Record<string, unknown> {
    const calls = this.tools.all()
    const message: Record<string, unknown> = { role: 'assistant', content: this.text.length > 0 || calls.length === 0 ? this.text : null, refusal: null }
    if (this.reasoning) message['reasoning_content'] = this.reasoning
    if (calls.length > 0) message['tool_calls'] = calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }))
    const reason = calls.length > 0 && (this.stop === undefined || this.stop === 'stop' || this.stop === 'tool_calls') ? 'tool_calls' : finishReason(this.stop)
    return {
      id,
      object: 'chat.completion',
      created,
      model,
      system_fingerprint: null,
      choices: [{ index: 0, message, logprobs: this.logprobs ? { content: this.logprobs, refusal: null } : null, finish_reason: reason }],
      usage: openAIUsage(this.usage)
    }
  }
}
