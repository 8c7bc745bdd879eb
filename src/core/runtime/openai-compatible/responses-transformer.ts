import type { GroundingCitation, NativeStreamEvent, StreamEvent } from '../../../shared/stream/events'
import { convertOpenAIResponseUsage, type OpenAIResponsesUsage } from './openai-usage'
import type { ChatPricingContext } from '../../../shared/pricing/lookup-params'
import type { Pricing } from '../../../shared/pricing/types'
import { runtimeError } from '../runtime-error'
import { withCost } from '../usage-cost'
import type { ChunkTransformer } from '../stream/run-chat-stream'

/** The events of a reply's text, reasoning and function calls: the app's own events carry all of them. */
const NOT_NATIVE = new Set(['response.output_text.delta', 'response.reasoning_summary_text.delta', 'response.reasoning_text.delta', 'response.function_call_arguments.delta'])

/**
 * The events of one output item (its adding, progress and end) and the annotations on a text,
 * less the deltas the app's own events carry. Never the response's own events (created,
 * completed, failed): the first of those would start the client's answer before a failure
 * could still be answered with an HTTP error.
 */
const isNativeEvent = (event: ResponsesEvent): boolean => event.type === 'response.output_text.annotation.added' || (event.output_index !== undefined && !NOT_NATIVE.has(event.type))

/** One Responses API stream event (only the fields we read). */
export interface ResponsesEvent {
  type: string
  delta?: string
  item_id?: string
  output_index?: number
  summary_index?: number
  item?: { id?: string; type?: string; call_id?: string; name?: string; arguments?: string; status?: string }
  annotation?: { type?: string; url?: string; title?: string }
  response?: { id?: string; status?: string; usage?: OpenAIResponsesUsage | null; error?: { code?: string; message?: string } | null; incomplete_details?: { reason?: string } | null }
  /** `error` events. */
  code?: string
  message?: string
}

/**
 * Responses API events → stream events. Function calls are numbered in arrival order and
 * their argument deltas found by item id or call id; annotations collected and emitted as one
 * grounding when their message item is done; `response.completed` ends with stop and usage.
 */
export class ResponsesTransformer implements ChunkTransformer<ResponsesEvent> {
  private readonly calls = new Map<string, { index: number; id: string; name: string }>()
  private citations: GroundingCitation[] = []
  private seenSummary = false
  finished = false
  /**
   * A local-API request with built-in tools: the events of output items and annotations are also
   * passed on unchanged (`native`, see isNativeEvent), before the events made of them, so that
   * the client is given the built-in tools' own output items and annotations.
   */
  native = false

  constructor(
    private readonly provider: string,
    /** May be set after construction, before the first event. */
    public pricing?: Pricing,
    /** The request's model and thinking, for lookup-priced units. */
    public pricingContext?: ChatPricingContext
  ) {}

  transform(event: ResponsesEvent, emit: (event: StreamEvent) => void): void {
    if (this.native && isNativeEvent(event)) emit({ type: 'native', data: { api: 'openai-responses', event: event as unknown as NativeStreamEvent['event'] } })
    switch (event.type) {
      case 'response.output_text.delta':
        if (event.delta) emit({ type: 'text', data: event.delta })
        return
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        if (event.delta) emit({ type: 'reasoning', data: event.delta })
        return
      case 'response.reasoning_summary_part.added':
        // Separate summary parts the way the reference does: a newline before every part but the first.
        if (this.seenSummary) emit({ type: 'reasoning', data: '\n' })
        this.seenSummary = true
        return
      case 'response.output_item.added': {
        const item = event.item
        if (item?.type !== 'function_call') return
        const call = { index: this.calls.size, id: item.call_id ?? item.id ?? `call_${this.calls.size}`, name: item.name ?? '' }
        if (item.id) this.calls.set(item.id, call)
        if (item.call_id) this.calls.set(item.call_id, call)
        emit({ type: 'tool_calls', data: [{ id: call.id, type: 'function', function: { name: call.name, arguments: item.arguments ?? '' }, index: call.index }] })
        return
      }
      case 'response.function_call_arguments.delta': {
        const call = event.item_id ? this.calls.get(event.item_id) : undefined
        if (!call || !event.delta) return
        emit({ type: 'tool_calls', data: [{ id: call.id, type: 'function', function: { name: call.name, arguments: event.delta }, index: call.index }] })
        return
      }
      case 'response.output_text.annotation.added': {
        const a = event.annotation
        if (a?.type === 'url_citation' && a.url) this.citations.push(a.title ? { title: a.title, url: a.url } : { url: a.url })
        return
      }
      case 'response.output_item.done':
        if (event.item?.type === 'message' && this.citations.length) {
          emit({ type: 'grounding', data: { citations: this.citations } })
          this.citations = []
        }
        return
      case 'response.completed':
      case 'response.incomplete': {
        this.finished = true
        const reason = event.type === 'response.incomplete' ? (event.response?.incomplete_details?.reason === 'max_output_tokens' ? 'length' : 'stop') : this.calls.size ? 'tool_calls' : 'stop'
        emit({ type: 'stop', data: reason })
        if (event.response?.usage) emit({ type: 'usage', data: withCost(convertOpenAIResponseUsage(event.response.usage), this.pricing, this.pricingContext) })
        return
      }
      case 'response.failed':
      case 'error': {
        this.finished = true
        const err = event.response?.error ?? { code: event.code, message: event.message }
        emit({ type: 'error', data: runtimeError('ProviderBizError', err?.message ?? 'The response failed.', this.provider, err?.code ? { code: err.code } : undefined) })
        emit({ type: 'stop', data: 'error' })
        return
      }
      default:
        return
    }
  }
}
