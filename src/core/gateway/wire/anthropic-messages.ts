import { z } from 'zod'
import type { CacheControl, ChatContentPart, ChatMessage, ChatRequest, NativeApi, ReasoningEffort } from '../../runtime/types'
import type { NativeStreamEvent, StreamEvent, StopReason } from '../../../shared/stream/events'
import type { UsageRecord } from '../../../shared/stream/usage'
import { ToolCallAssembler, parseArguments } from './tool-call-assembler'
import { GatewayError } from '../gateway-error'

// Anthropic's Messages API (`POST /v1/messages`) as clients send it, turned into the runtime's
// request, and the runtime's events written back as Anthropic's stream events.

const imageSource = z.union([
  z.object({ type: z.literal('base64'), media_type: z.string(), data: z.string() }),
  z.object({ type: z.literal('url'), url: z.string() })
])
/** A prompt-caching breakpoint; kept exactly (type and lifetime) for an upstream that caches. */
const cacheControl = z.object({ type: z.literal('ephemeral'), ttl: z.enum(['5m', '1h']).optional() })
// Loose: an assistant turn sent back to an upstream that takes it as it is keeps every field (citations, caller).
const textBlock = z.looseObject({ type: z.literal('text'), text: z.string(), cache_control: cacheControl.nullable().optional() })
const imageBlock = z.object({ type: z.literal('image'), source: imageSource, cache_control: cacheControl.nullable().optional() })
const toolUseBlock = z.looseObject({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.unknown(), cache_control: cacheControl.nullable().optional() })
const toolResultBlock = z.object({
  type: z.literal('tool_result'),
  tool_use_id: z.string(),
  content: z.union([z.string(), z.array(z.union([textBlock, imageBlock]))]).optional(),
  is_error: z.boolean().optional(),
  cache_control: cacheControl.nullable().optional()
})
const thinkingBlock = z.looseObject({ type: z.literal('thinking'), thinking: z.string(), signature: z.string().optional() })
const redactedThinkingBlock = z.looseObject({ type: z.literal('redacted_thinking'), data: z.string() })
/**
 * A block a server tool left in an assistant turn (server_tool_use, web_search_tool_result,
 * code_execution_tool_result …): its fields are Anthropic's, passed on as they are.
 */
export const isServerBlockType = (type: string): boolean => type === 'server_tool_use' || type === 'mcp_tool_use' || type === 'container_upload' || (type.endsWith('_tool_result') && type !== 'tool_result')
/** The types `isServerBlockType` takes, as the compiler sees them: so a check for `text` or `tool_result` narrows them away. */
type ServerBlockType = 'server_tool_use' | 'mcp_tool_use' | 'container_upload' | `${string}_tool_result`
const serverBlock = z.looseObject({ type: z.custom<ServerBlockType>((v) => typeof v === 'string' && isServerBlockType(v), 'Unknown content block type.') })
const block = z.union([textBlock, imageBlock, toolUseBlock, toolResultBlock, thinkingBlock, redactedThinkingBlock, serverBlock])

const effort = z.enum(['minimal', 'low', 'medium', 'high', 'xhigh', 'max'])

/** The request without max_tokens: what count_tokens takes. */
const anthropicInputSchema = z.object({
  model: z.string().min(1),
  // Claude Code sends system turns mid-conversation (with per-turn settings); Anthropic's API takes them.
  messages: z.array(z.object({ role: z.enum(['user', 'assistant', 'system']), content: z.union([z.string(), z.array(block)]) })).min(1),
  system: z.union([z.string(), z.array(textBlock)]).optional(),
  stream: z.boolean().optional(),
  temperature: z.number().min(0).max(1).optional(),
  top_p: z.number().min(0).max(1).optional(),
  top_k: z.number().int().optional(),
  stop_sequences: z.array(z.string()).optional(),
  // Client tools have an input_schema; server tools (web_search_…, bash_…) a type and their own fields.
  tools: z
    .array(
      z.looseObject({
        name: z.string().min(1).max(128),
        description: z.string().optional(),
        input_schema: z.record(z.string(), z.unknown()).optional(),
        type: z.string().optional(),
        cache_control: cacheControl.nullable().optional()
      })
    )
    .optional(),
  tool_choice: z.object({ type: z.enum(['auto', 'any', 'tool', 'none']), name: z.string().optional() }).optional(),
  thinking: z
    .union([
      z.object({ type: z.literal('enabled'), budget_tokens: z.number().int().positive() }),
      z.object({ type: z.literal('adaptive'), display: z.string().optional() }),
      z.object({ type: z.literal('disabled') })
    ])
    .optional(),
  output_config: z.object({ effort: effort.optional() }).loose().optional(),
  metadata: z.object({ user_id: z.string().optional() }).optional()
})
export const anthropicCountTokensSchema = anthropicInputSchema
export const anthropicMessagesSchema = anthropicInputSchema.extend({ max_tokens: z.number().int().positive() })
export type AnthropicMessagesBody = z.infer<typeof anthropicMessagesSchema>
export type AnthropicCountTokensBody = z.infer<typeof anthropicCountTokensSchema>

const imageUrl = (source: z.infer<typeof imageSource>): string => (source.type === 'base64' ? `data:${source.media_type};base64,${source.data}` : source.url)

type Cache = z.infer<typeof cacheControl> | null | undefined
const cacheOf = (cache: Cache): { cache_control?: CacheControl } => (cache ? { cache_control: cache.ttl ? { type: cache.type, ttl: cache.ttl } : { type: cache.type } } : {})

/**
 * System text blocks: one string when no block has a breakpoint (what every runtime reads), the
 * blocks themselves when one has (an Anthropic upstream caches at exactly those places).
 */
function systemContent(blocks: Array<z.infer<typeof textBlock>>): string | ChatContentPart[] {
  if (!blocks.some((b) => b.cache_control)) return blocks.map((b) => b.text).join('\n\n')
  return blocks.map((b) => ({ type: 'text', text: b.text, ...cacheOf(b.cache_control) }))
}

const EFFORT: Record<z.infer<typeof effort>, ReasoningEffort> = { minimal: 'minimal', low: 'low', medium: 'medium', high: 'high', xhigh: 'high', max: 'high' }

/** A tool the client runs (a function with its schema) rather than one Anthropic defines and may run itself. */
const isClientTool = (tool: { type?: string | undefined }): boolean => tool.type === undefined || tool.type === 'custom'

export interface AnthropicRequestOptions {
  /**
   * The API whose own tools the upstream takes (`GatewayBackend.nativeApi`): with
   * `anthropic-messages`, server tools and the server blocks of earlier turns go on unchanged.
   */
  nativeApi?: NativeApi | undefined
}

/**
 * The Anthropic request as the runtime's request. What an upstream may not have (server tools,
 * the blocks they left in earlier turns) is left out and named in `warnings`, so the agent keeps
 * working; the gateway says so in a header and the log. An upstream that has them is given them
 * as they are (`nativeTools`, and `native` on the assistant turns that hold server blocks).
 */
export function anthropicToRequest(
  body: AnthropicMessagesBody | (AnthropicCountTokensBody & { max_tokens?: number }),
  modelId: string,
  warnings: string[] = [],
  options: AnthropicRequestOptions = {}
): ChatRequest {
  const native = options.nativeApi === 'anthropic-messages'
  let serverBlocksLeftOut = false
  const messages: ChatMessage[] = []
  if (body.system !== undefined) {
    const content = typeof body.system === 'string' ? body.system : systemContent(body.system)
    if (content.length > 0) messages.push({ role: 'system', content })
  }
  for (const message of body.messages) {
    if (typeof message.content === 'string') {
      messages.push({ role: message.role, content: message.content })
      continue
    }
    if (message.role === 'system') {
      const texts = message.content.filter((b): b is z.infer<typeof textBlock> => b.type === 'text')
      if (texts.length !== message.content.length) throw GatewayError.invalid('A system message holds text blocks only.', 'messages')
      messages.push({ role: 'system', content: systemContent(texts) })
      continue
    }
    if (message.role === 'user') {
      // Tool results answer the previous assistant turn; they go first, as the runtime's own turns.
      const parts: ChatContentPart[] = []
      for (const b of message.content) {
        if (b.type === 'tool_result') {
          const content = typeof b.content === 'string' ? b.content : (b.content ?? []).map((c) => (c.type === 'text' ? c.text : '[image]')).join('\n')
          messages.push({ role: 'tool', tool_call_id: b.tool_use_id, content: b.is_error ? `Error: ${content}` : content, ...cacheOf(b.cache_control) })
        } else if (b.type === 'text') parts.push({ type: 'text', text: b.text, ...cacheOf(b.cache_control) })
        else if (b.type === 'image') parts.push({ type: 'image_url', image_url: { url: imageUrl(b.source) } })
        else throw GatewayError.invalid(`A user message cannot hold a ${b.type} block.`, 'messages')
      }
      const plain = parts.every((p) => p.type === 'text' && !p.cache_control)
      if (parts.length > 0) messages.push({ role: 'user', content: plain ? parts.map((p) => (p as { text: string }).text).join('\n') : parts })
      continue
    }
    const out: ChatMessage = { role: 'assistant', content: null }
    let text = ''
    let serverBlocks = false
    for (const b of message.content) {
      if (b.type === 'text') text += b.text
      else if (b.type === 'tool_use') (out.tool_calls ??= []).push({ id: b.id, type: 'function', function: { name: b.name, arguments: JSON.stringify(b.input ?? {}) } })
      else if (b.type === 'thinking') out.reasoning = { content: b.thinking, ...(b.signature ? { signature: b.signature } : {}) }
      else if (b.type === 'redacted_thinking') out.reasoning = { content: '', signature: b.data, redacted: true }
      else if (isServerBlockType(b.type)) serverBlocks = true
      else throw GatewayError.invalid(`An assistant message cannot hold a ${b.type} block.`, 'messages')
    }
    out.content = text || null
    if (serverBlocks && native) out.native = { api: 'anthropic-messages', blocks: message.content as Array<Record<string, unknown>> }
    else if (serverBlocks) serverBlocksLeftOut = true
    messages.push(out)
  }
  const request: ChatRequest = { model: modelId, messages, stream: true }
  if (body.max_tokens !== undefined) request.max_tokens = body.max_tokens
  if (body.temperature !== undefined) request.temperature = body.temperature
  if (body.top_p !== undefined) request.top_p = body.top_p
  if (body.stop_sequences?.length) request.stop = body.stop_sequences
  if (body.metadata?.user_id) request.user = body.metadata.user_id
  if (body.thinking) request.thinking = body.thinking.type === 'enabled' ? { type: 'enabled', budget_tokens: body.thinking.budget_tokens } : { type: body.thinking.type }
  if (body.output_config?.effort) request.reasoning_effort = EFFORT[body.output_config.effort]
  if (serverBlocksLeftOut) warnings.push('The server tool calls and results of earlier turns were left out: this upstream has no server tools.')
  const tools = (body.tools ?? []).filter((tool) => {
    if (isClientTool(tool) || native) return true
    warnings.push(`The server tool ${JSON.stringify(tool.type)} (${tool.name}) is not offered by this upstream and was left out.`)
    return false
  })
  const serverTools = tools.filter((tool) => !isClientTool(tool))
  const functions = tools.filter(isClientTool)
  if (serverTools.length > 0 && body.tool_choice?.type !== 'none') request.nativeTools = { api: 'anthropic-messages', tools: serverTools }
  if (functions.length > 0 && body.tool_choice?.type !== 'none') {
    request.tools = functions.map((t) => ({
      type: 'function',
      function: { name: t.name, ...(t.description ? { description: t.description } : {}), parameters: t.input_schema ?? { type: 'object', properties: {} } },
      ...cacheOf(t.cache_control)
    }))
    const choice = body.tool_choice
    if (choice?.type === 'any') request.tool_choice = 'required'
    else if (choice?.type === 'tool' && choice.name) request.tool_choice = { type: 'function', function: { name: choice.name } }
  }
  return request
}

/** Anthropic's own stop reasons, which an Anthropic upstream reports and its client is told as they are. */
const ANTHROPIC_STOPS = new Set(['end_turn', 'max_tokens', 'stop_sequence', 'tool_use', 'pause_turn', 'refusal', 'model_context_window_exceeded'])

export function anthropicStopReason(stop: StopReason | undefined, calledTools: boolean): string {
  if (stop && ANTHROPIC_STOPS.has(stop)) return stop
  if (stop === 'length') return 'max_tokens'
  if (stop === 'content_filter') return 'refusal'
  if (stop === 'tool_calls' || calledTools) return 'tool_use'
  return 'end_turn'
}

export function anthropicUsage(usage: UsageRecord | undefined): { input_tokens: number; output_tokens: number; cache_read_input_tokens?: number; cache_creation_input_tokens?: number } {
  const cached = usage?.inputCachedTokens ?? 0
  const written = usage?.inputWriteCacheTokens ?? 0
  const input = usage?.inputCacheMissTokens ?? Math.max(0, (usage?.totalInputTokens ?? 0) - cached - written)
  return {
    input_tokens: input,
    output_tokens: usage?.totalOutputTokens ?? 0,
    ...(cached ? { cache_read_input_tokens: cached } : {}),
    ...(written ? { cache_creation_input_tokens: written } : {})
  }
}

export interface AnthropicEvent {
  type: string
  [field: string]: unknown
}

type BlockKind = 'text' | 'thinking' | 'tool_use' | 'native'

/**
 * Turns runtime events into Anthropic's stream events (message_start … message_stop). An
 * Anthropic upstream given server tools also streams its own block events (`native`): from the
 * first of them on, the blocks are those, renumbered in this message, and the events made of
 * them (text, reasoning, tool calls) are not written twice.
 */
export class AnthropicMessageEvents {
  private readonly tools = new ToolCallAssembler()
  private next = 0
  private current: { index: number; kind: BlockKind } | undefined
  private readonly toolBlocks = new Map<number, number>()
  private readonly open = new Set<number>()
  /** The upstream's block index → this message's, for its own block events. */
  private readonly nativeBlocks = new Map<number, number>()
  private forwarding = false
  private serverToolUse: unknown
  usage: UsageRecord | undefined
  stop: StopReason | undefined

  constructor(
    private readonly id: string,
    private readonly model: string,
    /**
     * The prompt's size before the upstream has said it (it does at the end, in message_delta's
     * usage): clients that budget their context read message_start's input_tokens.
     */
    private readonly inputEstimate = 0
  ) {}

  start(): AnthropicEvent[] {
    return [
      {
        type: 'message_start',
        message: { id: this.id, type: 'message', role: 'assistant', model: this.model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: this.inputEstimate, output_tokens: 0 } }
      },
      { type: 'ping' }
    ]
  }

  private openBlock(kind: BlockKind, contentBlock: Record<string, unknown>, out: AnthropicEvent[]): number {
    if (this.current) this.closeBlock(this.current.index, out)
    const index = this.next++
    this.current = { index, kind }
    this.open.add(index)
    out.push({ type: 'content_block_start', index, content_block: contentBlock })
    return index
  }

  private closeBlock(index: number, out: AnthropicEvent[]): void {
    if (!this.open.delete(index)) return
    out.push({ type: 'content_block_stop', index })
    if (this.current?.index === index) this.current = undefined
  }

  /** One of the upstream's own events: its blocks as they are, with this message's index. */
  private forward(native: NativeStreamEvent, out: AnthropicEvent[]): void {
    if (native.api !== 'anthropic-messages') return
    const event = native.event
    const upstreamIndex = event['index'] as number
    switch (event.type) {
      case 'content_block_start':
        this.forwarding = true
        this.nativeBlocks.set(upstreamIndex, this.next)
        this.openBlock('native', event['content_block'] as Record<string, unknown>, out)
        break
      case 'content_block_delta': {
        const index = this.nativeBlocks.get(upstreamIndex)
        if (index !== undefined && this.open.has(index)) out.push({ type: 'content_block_delta', index, delta: event['delta'] })
        break
      }
      case 'content_block_stop': {
        const index = this.nativeBlocks.get(upstreamIndex)
        if (index !== undefined) this.closeBlock(index, out)
        break
      }
      case 'message_delta': {
        // What the server tools did (web_search_requests …): Anthropic reports it in the final usage.
        const used = (event['usage'] as { server_tool_use?: unknown } | null | undefined)?.server_tool_use
        if (used) this.serverToolUse = used
        break
      }
      default:
        break
    }
  }

  push(event: StreamEvent): AnthropicEvent[] {
    const out: AnthropicEvent[] = []
    if (this.forwarding && (event.type === 'text' || event.type === 'reasoning' || event.type === 'tool_calls')) return out
    switch (event.type) {
      case 'native':
        this.forward(event.data, out)
        break
      case 'text': {
        if (!event.data) break
        const index = this.current?.kind === 'text' ? this.current.index : this.openBlock('text', { type: 'text', text: '' }, out)
        out.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: event.data } })
        break
      }
      case 'reasoning': {
        if (event.redacted) {
          const index = this.openBlock('thinking', { type: 'redacted_thinking', data: event.signature ?? '' }, out)
          this.closeBlock(index, out)
          break
        }
        const index = this.current?.kind === 'thinking' ? this.current.index : this.openBlock('thinking', { type: 'thinking', thinking: '', signature: '' }, out)
        if (event.data) out.push({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: event.data } })
        if (event.signature) {
          out.push({ type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: event.signature } })
          this.closeBlock(index, out)
        }
        break
      }
      case 'tool_calls':
        for (const d of this.tools.add(event.data)) {
          let index = this.toolBlocks.get(d.index)
          if (index === undefined) {
            index = this.openBlock('tool_use', { type: 'tool_use', id: d.id, name: d.name, input: {} }, out)
            this.toolBlocks.set(d.index, index)
          }
          if (d.argumentsDelta) out.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: d.argumentsDelta } })
        }
        break
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

  finish(): AnthropicEvent[] {
    const out: AnthropicEvent[] = []
    for (const index of [...this.open].sort((a, b) => a - b)) this.closeBlock(index, out)
    const usage = { ...anthropicUsage(this.usage), ...(this.serverToolUse ? { server_tool_use: this.serverToolUse } : {}) }
    out.push({ type: 'message_delta', delta: { stop_reason: anthropicStopReason(this.stop, this.tools.size > 0), stop_sequence: null }, usage })
    out.push({ type: 'message_stop' })
    return out
  }
}

/** Applies Anthropic stream events to one message object: the non-streamed answer is built from the same events. */
export function collectAnthropicMessage(events: readonly AnthropicEvent[]): Record<string, unknown> {
  let message: Record<string, unknown> = {}
  const content: Array<Record<string, unknown>> = []
  const json = new Map<number, string>()
  for (const event of events) {
    if (event.type === 'message_start') message = { ...(event['message'] as Record<string, unknown>) }
    else if (event.type === 'content_block_start') content[event['index'] as number] = { ...(event['content_block'] as Record<string, unknown>) }
    else if (event.type === 'content_block_delta') {
      const index = event['index'] as number
      const target = content[index]!
      const delta = event['delta'] as Record<string, string>
      if (delta['type'] === 'text_delta') target['text'] = `${target['text'] as string}${delta['text']}`
      else if (delta['type'] === 'citations_delta') target['citations'] = [...((target['citations'] as unknown[] | null | undefined) ?? []), delta['citation']]
      else if (delta['type'] === 'thinking_delta') target['thinking'] = `${target['thinking'] as string}${delta['thinking']}`
      else if (delta['type'] === 'signature_delta') target['signature'] = delta['signature']
      else if (delta['type'] === 'input_json_delta') json.set(index, (json.get(index) ?? '') + delta['partial_json'])
    } else if (event.type === 'message_delta') {
      const delta = event['delta'] as Record<string, unknown>
      message['stop_reason'] = delta['stop_reason']
      message['stop_sequence'] = delta['stop_sequence']
      message['usage'] = event['usage']
    }
  }
  // A block whose input came whole in its start (and only empty deltas after) keeps that input.
  for (const [index, text] of json) if (text.trim()) content[index]!['input'] = parseArguments(text)
  return { ...message, content: content.filter(Boolean) }
}
