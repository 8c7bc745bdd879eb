import { z } from 'zod'
import type { ChatContentPart, ChatMessage, ChatRequest, NativeApi } from '../../runtime/types'
import type { NativeStreamEvent, StreamEvent, StopReason } from '../../../shared/stream/events'
import type { UsageRecord } from '../../../shared/stream/usage'
import { ToolCallAssembler } from './tool-call-assembler'
import { GatewayError } from '../gateway-error'

// OpenAI's Responses API (`POST /v1/responses`), stateless: the gateway keeps no responses, so
// `previous_response_id` is refused by name and clients send the whole input each time.

const contentPart = z.union([
  z.object({ type: z.literal('input_text'), text: z.string() }),
  z.object({ type: z.literal('output_text'), text: z.string() }),
  z.object({ type: z.literal('input_image'), image_url: z.string(), detail: z.enum(['auto', 'low', 'high']).optional() })
])
const messageItem = z.object({
  type: z.literal('message').optional(),
  role: z.enum(['user', 'assistant', 'system', 'developer']),
  content: z.union([z.string(), z.array(contentPart)])
})
const functionCallItem = z.object({ type: z.literal('function_call'), call_id: z.string(), name: z.string(), arguments: z.string(), id: z.string().optional() })
const functionOutputItem = z.object({ type: z.literal('function_call_output'), call_id: z.string(), output: z.union([z.string(), z.array(contentPart)]) })
const reasoningItem = z.object({ type: z.literal('reasoning') }).loose()
/** An item a built-in tool left in the conversation (web_search_call, file_search_call, code_interpreter_call …): OpenAI's fields, passed on as they are. */
export const isBuiltInItemType = (type: string): boolean =>
  (type.endsWith('_call') && type !== 'function_call') || (type.endsWith('_call_output') && type !== 'function_call_output') || type.startsWith('mcp_')
// Branded, so the compiler tells these from the items whose types are literals (`isBuiltInItem`).
const builtInItem = z.looseObject({ type: z.string().refine(isBuiltInItemType, 'Unknown input item type.').brand<'BuiltInItemType'>() })
type InputItem = Exclude<z.infer<typeof responsesSchema>['input'], string>[number]
const isBuiltInItem = (item: InputItem): item is z.infer<typeof builtInItem> => item.type !== undefined && isBuiltInItemType(item.type)
const isMessageItem = (item: InputItem): item is z.infer<typeof messageItem> => item.type === undefined || item.type === 'message'

export const responsesSchema = z.object({
  model: z.string().min(1),
  input: z.union([z.string(), z.array(z.union([messageItem, functionCallItem, functionOutputItem, reasoningItem, builtInItem]))]),
  instructions: z.string().nullable().optional(),
  stream: z.boolean().nullable().optional(),
  max_output_tokens: z.number().int().positive().nullable().optional(),
  temperature: z.number().min(0).max(2).nullable().optional(),
  top_p: z.number().min(0).max(1).nullable().optional(),
  // Function tools, and built-in ones (web_search, namespace, …) with their own fields.
  tools: z
    .array(z.looseObject({ type: z.string(), name: z.string().optional(), description: z.string().nullable().optional(), parameters: z.record(z.string(), z.unknown()).nullable().optional(), strict: z.boolean().nullable().optional() }))
    .optional(),
  tool_choice: z.union([z.enum(['none', 'auto', 'required']), z.object({ type: z.literal('function'), name: z.string() })]).optional(),
  reasoning: z.object({ effort: z.enum(['minimal', 'low', 'medium', 'high']).nullable().optional() }).nullable().optional(),
  text: z
    .object({
      format: z
        .union([
          z.object({ type: z.literal('text') }),
          z.object({ type: z.literal('json_object') }),
          z.object({ type: z.literal('json_schema'), name: z.string(), schema: z.record(z.string(), z.unknown()), strict: z.boolean().nullable().optional(), description: z.string().optional() })
        ])
        .optional()
    })
    .nullable()
    .optional(),
  previous_response_id: z.string().nullable().optional(),
  user: z.string().optional()
})
export type ResponsesBody = z.infer<typeof responsesSchema>

const toParts = (content: string | Array<z.infer<typeof contentPart>>): string | ChatContentPart[] =>
  typeof content === 'string'
    ? content
    : content.every((p) => p.type !== 'input_image')
      ? content.map((p) => (p as { text: string }).text).join('\n')
      : content.map((p) => (p.type === 'input_image' ? { type: 'image_url', image_url: { url: p.image_url, ...(p.detail ? { detail: p.detail } : {}) } } : { type: 'text', text: p.text }))

export interface ResponsesRequestOptions {
  /** The API whose own tools the upstream takes (`GatewayBackend.nativeApi`): with `openai-responses`, built-in tools and their items go on unchanged. */
  nativeApi?: NativeApi | undefined
}

/**
 * The Responses request as the runtime's request. Built-in tools (web_search, namespace, …) go
 * as they are to an upstream whose Responses API has them (`nativeTools`, and `native` turns for
 * the items they left in the conversation); elsewhere they are left out and named in `warnings`:
 * Codex sends them on every request beside its functions, and a refusal would stop the agent;
 * the gateway says so in a header and the log.
 */
export function responsesToRequest(body: ResponsesBody, modelId: string, warnings: string[] = [], options: ResponsesRequestOptions = {}): ChatRequest {
  if (body.previous_response_id) throw GatewayError.invalid('This server keeps no responses: send the whole conversation in `input` instead of previous_response_id.', 'previous_response_id')
  const native = options.nativeApi === 'openai-responses'
  let itemsLeftOut = false
  const messages: ChatMessage[] = []
  if (body.instructions) messages.push({ role: 'system', content: body.instructions })
  if (typeof body.input === 'string') messages.push({ role: 'user', content: body.input })
  else {
    for (const item of body.input) {
      if (item.type === 'reasoning') continue
      if (isBuiltInItem(item)) {
        if (native) messages.push({ role: 'assistant', content: null, native: { api: 'openai-responses', blocks: [item as Record<string, unknown>] } })
        else itemsLeftOut = true
        continue
      }
      if (item.type === 'function_call') {
        const last = messages[messages.length - 1]
        const call = { id: item.call_id, type: 'function', function: { name: item.name, arguments: item.arguments } }
        if (last?.role === 'assistant') (last.tool_calls ??= []).push(call)
        else messages.push({ role: 'assistant', content: null, tool_calls: [call] })
      } else if (item.type === 'function_call_output') {
        messages.push({ role: 'tool', tool_call_id: item.call_id, content: typeof item.output === 'string' ? item.output : (toParts(item.output) as string) })
      } else if (isMessageItem(item)) {
        messages.push({ role: item.role, content: toParts(item.content) })
      }
    }
  }
  const request: ChatRequest = { model: modelId, messages, stream: true }
  if (body.max_output_tokens != null) request.max_tokens = body.max_output_tokens
  if (body.temperature != null) request.temperature = body.temperature
  if (body.top_p != null) request.top_p = body.top_p
  if (body.reasoning?.effort) request.reasoning_effort = body.reasoning.effort
  if (body.user) request.user = body.user
  if (itemsLeftOut) warnings.push('The built-in tool calls of earlier turns were left out: this upstream has no built-in tools.')
  const builtIn = (body.tools ?? []).filter((t) => t.type !== 'function')
  const functions = (body.tools ?? []).filter((t) => t.type === 'function')
  if (native && builtIn.length > 0 && body.tool_choice !== 'none') request.nativeTools = { api: 'openai-responses', tools: builtIn }
  else if (!native) {
    for (const t of builtIn) warnings.push(`The built-in tool ${JSON.stringify(t.type)}${t.name ? ` (${t.name})` : ''} is not offered by this upstream and was left out.`)
  }
  if (functions.length > 0 && body.tool_choice !== 'none') {
    request.tools = functions.map((t) => {
      if (!t.name) throw GatewayError.invalid('A function tool needs a name.', 'tools')
      return { type: 'function', function: { name: t.name, ...(t.description ? { description: t.description } : {}), parameters: t.parameters ?? { type: 'object', properties: {} } } }
    })
    if (body.tool_choice === 'required') request.tool_choice = 'required'
    else if (typeof body.tool_choice === 'object') request.tool_choice = { type: 'function', function: { name: body.tool_choice.name } }
  }
  const format = body.text?.format
  if (format?.type === 'json_object') request.response_format = { type: 'json_object' }
  else if (format?.type === 'json_schema')
    request.response_format = { type: 'json_schema', json_schema: { name: format.name, schema: format.schema, ...(format.strict != null ? { strict: format.strict } : {}), ...(format.description ? { description: format.description } : {}) } }
  return request
}

export function responsesUsage(usage: UsageRecord | undefined): Record<string, unknown> {
  const input = usage?.totalInputTokens ?? 0
  const output = usage?.totalOutputTokens ?? 0
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: usage?.inputCachedTokens ?? 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: usage?.outputReasoningTokens ?? 0 },
    total_tokens: usage?.totalTokens ?? input + output
  }
}

type Item = Record<string, unknown> & { id: string; type: string }

/** Turns runtime events into Responses API stream events; `response()` is the object they describe. */
/** The output items the app's own events make; every other item is a built-in tool's, passed on as the upstream sent it. */
const OWN_ITEMS = new Set(['message', 'function_call', 'reasoning'])

export class ResponsesEvents {
  private sequence = 0
  private readonly output: Item[] = []
  private message: { item: Item; index: number; text: string; annotations: unknown[] } | undefined
  /** The upstream's output index of a built-in tool's item → this response's. */
  private readonly builtInItems = new Map<number, number>()
  private readonly calls = new Map<number, { item: Item; index: number }>()
  private readonly tools = new ToolCallAssembler()
  private counter = 0
  usage: UsageRecord | undefined
  stop: StopReason | undefined
  failure: { code: string; message: string } | undefined

  constructor(
    private readonly id: string,
    private readonly model: string,
    private readonly createdAt: number,
    private readonly body: ResponsesBody
  ) {}

  private event(type: string, fields: Record<string, unknown>): Record<string, unknown> {
    return { type, sequence_number: this.sequence++, ...fields }
  }

  response(status: 'in_progress' | 'completed' | 'incomplete' | 'failed'): Record<string, unknown> {
    const done = status !== 'in_progress'
    return {
      id: this.id,
      object: 'response',
      created_at: this.createdAt,
      status,
      error: status === 'failed' ? (this.failure ?? { code: 'server_error', message: 'The model call failed.' }) : null,
      incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
      instructions: this.body.instructions ?? null,
      max_output_tokens: this.body.max_output_tokens ?? null,
      model: this.model,
      output: done ? this.output.map((item) => structuredClone(item)) : [],
      parallel_tool_calls: true,
      previous_response_id: null,
      reasoning: { effort: this.body.reasoning?.effort ?? null, summary: null },
      store: false,
      temperature: this.body.temperature ?? null,
      text: { format: this.body.text?.format ?? { type: 'text' } },
      tool_choice: this.body.tool_choice ?? 'auto',
      tools: this.body.tools ?? [],
      top_p: this.body.top_p ?? null,
      truncation: 'disabled',
      usage: done ? responsesUsage(this.usage) : null,
      user: this.body.user ?? null,
      metadata: {}
    }
  }

  start(): Array<Record<string, unknown>> {
    return [this.event('response.created', { response: this.response('in_progress') }), this.event('response.in_progress', { response: this.response('in_progress') })]
  }

  private closeMessage(out: Array<Record<string, unknown>>): void {
    const m = this.message
    if (!m) return
    this.message = undefined
    const part = { type: 'output_text', text: m.text, annotations: m.annotations, logprobs: [] }
    out.push(this.event('response.output_text.done', { item_id: m.item.id, output_index: m.index, content_index: 0, text: m.text, logprobs: [] }))
    out.push(this.event('response.content_part.done', { item_id: m.item.id, output_index: m.index, content_index: 0, part }))
    m.item['status'] = 'completed'
    m.item['content'] = [part]
    out.push(this.event('response.output_item.done', { output_index: m.index, item: structuredClone(m.item) }))
  }

  push(event: StreamEvent): Array<Record<string, unknown>> {
    const out: Array<Record<string, unknown>> = []
    if (event.type === 'text' && event.data) {
      if (!this.message) {
        const item: Item = { id: `msg_${this.id.slice(5)}_${this.counter++}`, type: 'message', status: 'in_progress', role: 'assistant', content: [] }
        const index = this.output.push(item) - 1
        this.message = { item, index, text: '', annotations: [] }
        out.push(this.event('response.output_item.added', { output_index: index, item: structuredClone(item) }))
        out.push(this.event('response.content_part.added', { item_id: item.id, output_index: index, content_index: 0, part: { type: 'output_text', text: '', annotations: [], logprobs: [] } }))
      }
      this.message.text += event.data
      out.push(this.event('response.output_text.delta', { item_id: this.message.item.id, output_index: this.message.index, content_index: 0, delta: event.data, logprobs: [] }))
    } else if (event.type === 'tool_calls') {
      for (const d of this.tools.add(event.data)) {
        let call = this.calls.get(d.index)
        if (!call) {
          this.closeMessage(out)
          const item: Item = { id: `fc_${this.id.slice(5)}_${this.counter++}`, type: 'function_call', status: 'in_progress', call_id: d.id, name: d.name, arguments: '' }
          call = { item, index: this.output.push(item) - 1 }
          this.calls.set(d.index, call)
          out.push(this.event('response.output_item.added', { output_index: call.index, item: structuredClone(item) }))
        }
        if (d.argumentsDelta) {
          call.item['arguments'] = `${call.item['arguments'] as string}${d.argumentsDelta}`
          out.push(this.event('response.function_call_arguments.delta', { item_id: call.item.id, output_index: call.index, delta: d.argumentsDelta }))
        }
      }
    } else if (event.type === 'native') this.forward(event.data, out)
    else if (event.type === 'usage') this.usage = event.data
    else if (event.type === 'stop') this.stop = event.data
    return out
  }

  /**
   * One of the upstream's own events: a built-in tool's output item (added, its progress, done)
   * with this response's index, or an annotation (a url_citation) on the text being written.
   */
  private forward(native: NativeStreamEvent, out: Array<Record<string, unknown>>): void {
    if (native.api !== 'openai-responses') return
    const { type, sequence_number: _sequence, ...fields } = native.event as Record<string, unknown> & { type: string }
    const upstreamIndex = fields['output_index'] as number
    if (type === 'response.output_item.added') {
      const item = fields['item'] as Item | undefined
      if (!item || OWN_ITEMS.has(item.type)) return
      this.closeMessage(out)
      const index = this.output.push(structuredClone(item)) - 1
      this.builtInItems.set(upstreamIndex, index)
      out.push(this.event(type, { output_index: index, item: structuredClone(item) }))
      return
    }
    if (type === 'response.output_text.annotation.added') {
      const m = this.message
      if (!m) return
      m.annotations.push(fields['annotation'])
      out.push(this.event(type, { item_id: m.item.id, output_index: m.index, content_index: 0, annotation_index: m.annotations.length - 1, annotation: fields['annotation'] }))
      return
    }
    const index = this.builtInItems.get(upstreamIndex)
    if (index === undefined) return
    if (type === 'response.output_item.done' && fields['item']) this.output[index] = structuredClone(fields['item'] as Item)
    out.push(this.event(type, { ...fields, output_index: index }))
  }

  /** Closes open items and ends with response.completed (or incomplete at the length limit). */
  finish(): Array<Record<string, unknown>> {
    const out: Array<Record<string, unknown>> = []
    this.closeMessage(out)
    for (const call of this.calls.values()) {
      call.item['status'] = 'completed'
      out.push(this.event('response.function_call_arguments.done', { item_id: call.item.id, output_index: call.index, name: call.item['name'], arguments: call.item['arguments'] }))
      out.push(this.event('response.output_item.done', { output_index: call.index, item: structuredClone(call.item) }))
    }
    const status = this.stop === 'length' ? 'incomplete' : 'completed'
    out.push(this.event(`response.${status}`, { response: this.response(status) }))
    return out
  }

  /** The stream ends in failure: what was written is kept in the failed response. */
  fail(code: string, message: string): Array<Record<string, unknown>> {
    const out: Array<Record<string, unknown>> = []
    this.failure = { code, message }
    out.push(this.event('response.failed', { response: this.response('failed') }))
    return out
  }
}
