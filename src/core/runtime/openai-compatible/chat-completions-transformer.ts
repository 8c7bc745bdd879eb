import type { GroundingCitation, StreamEvent, TokenLogprob } from '../../../shared/stream/events'
import { convertOpenAIUsage, type OpenAIChatUsage } from './openai-usage'
import type { ChatPricingContext } from '../../../shared/pricing/lookup-params'
import type { Pricing } from '../../../shared/pricing/types'
import { withCost } from '../usage-cost'
import { runtimeError } from '../runtime-error'
import { ChunkParseError, type ChunkTransformer } from '../stream/run-chat-stream'
import { ThinkTagSplitter } from '../stream/think-tag-splitter'
import { ToolCallDeltaNormaliser, type ToolCallDelta } from '../stream/tool-call-merger'
import type { ErrorTypeName } from '../../../shared/errors/catalogue'

/** A chat.completion.chunk as OpenAI-compatible providers really send it (extensions included). */
export interface OpenAIChatChunk {
  id?: string
  model?: string
  choices?: Array<{
    index?: number
    delta?: {
      role?: string
      content?: string | null | Array<{ type?: string; text?: string; image?: string; thinking?: Array<{ type: string; text?: string }> }>
      reasoning_content?: string | null
      reasoning?: string | null
      reasoning_text?: string | null
      reasoning_details?: Array<{ type?: string; text?: string }>
      tool_calls?: ToolCallDelta[] | null
      images?: Array<string | { url?: string; image_url?: string | { url?: string; image_url?: { url?: string } } }>
      annotations?: Array<{ type?: string; url?: string; title?: string; url_citation?: { url?: string; title?: string } }>
    } | null
    finish_reason?: string | null
    /** The output tokens' log-probabilities, when the request asked for them. */
    logprobs?: { content?: TokenLogprob[] | null } | null
    /** MiniMax returns whole messages (with annotations) on the final chunk. */
    messages?: Array<{ role?: string; content?: string; annotations?: Array<{ url?: string; text?: string; title?: string }> }>
  }> | null
  usage?: OpenAIChatUsage | null
  /** Perplexity, xAI. */
  citations?: string[]
  /** Hunyuan. */
  search_info?: { search_results?: Array<{ title?: string; url?: string; link?: string }> }
  /** Wenxin. */
  search_results?: Array<{ title?: string; url?: string; link?: string }>
  /** Zhipu. */
  web_search?: Array<{ title?: string; url?: string; link?: string }>
  /** MiniMax puts its errors here, with HTTP 200. */
  base_resp?: { status_code?: number; status_msg?: string }
}

const MINIMAX_ERRORS: Record<number, ErrorTypeName> = {
  1002: 'QuotaLimitReached',
  1008: 'InsufficientQuota',
  1039: 'ExceededContextWindow',
  2049: 'InvalidProviderAPIKey'
}

const MARKDOWN_IMAGE = /!\[[^\]]*\]\((data:image\/[a-zA-Z0-9.+-]+;base64,[^)]+)\)/g

export function dataUrlToImage(dataUrl: string): { image: string; mimeType: string } | undefined {
  const m = /^data:([^;,]+);base64,(.*)$/s.exec(dataUrl)
  return m ? { mimeType: m[1]!, image: m[2]! } : undefined
}

export interface ChatCompletionsTransformerOptions {
  provider: string
  /** Split `<think>…</think>` out of text (on by default: DeepSeek-R1 distills, MiniMax, Azure R1 …). */
  thinkTags?: boolean
  /** The model's pricing: usage events then carry `cost`. */
  pricing?: Pricing
}

/**
 * OpenAI chat-completions chunks → stream events (providers.md §3–4). One instance per stream.
 * Reasoning comes from reasoning_content / reasoning / reasoning_text / reasoning_details,
 * Magistral thinking blocks, or `<think>` tags in the text; tool-call fragments keep their
 * index and id; citations from any of the providers' shapes become one grounding event;
 * usage is emitted once, at the end, after `stop`.
 */
export class ChatCompletionsTransformer implements ChunkTransformer<OpenAIChatChunk> {
  private readonly splitter: ThinkTagSplitter | undefined
  private readonly tools = new ToolCallDeltaNormaliser()
  private usage: OpenAIChatUsage | undefined
  private grounded = false
  /** Set when a finish_reason arrived: the provider's own end of the reply. */
  finished = false
  /** The model's pricing (may be set after construction, before the first chunk). */
  pricing: Pricing | undefined
  /** The request's model and thinking, for lookup-priced units (ttl, thinking mode). */
  pricingContext: ChatPricingContext | undefined

  constructor(private readonly options: ChatCompletionsTransformerOptions) {
    this.splitter = options.thinkTags === false ? undefined : new ThinkTagSplitter()
    this.pricing = options.pricing
  }

  transform(chunk: OpenAIChatChunk, emit: (event: StreamEvent) => void): void {
    if (chunk === null || typeof chunk !== 'object') throw new ChunkParseError('chunk is not an object', chunk)
    const base = chunk.base_resp
    if (base && typeof base.status_code === 'number' && base.status_code !== 0) {
      const type = MINIMAX_ERRORS[base.status_code] ?? 'ProviderBizError'
      emit({ type: 'error', data: runtimeError(type, base.status_msg ?? `error ${base.status_code}`, this.options.provider, { status_code: base.status_code }) })
      emit({ type: 'stop', data: 'error' })
      this.finished = true
      return
    }
    if (chunk.usage) this.usage = chunk.usage
    this.grounding(chunk, emit)
    const choice = chunk.choices?.[0]
    if (!choice) return
    if (choice.messages?.length && !this.grounded) {
      const annotations = choice.messages.flatMap((m) => m.annotations ?? [])
      this.emitGrounding(annotations.map((a) => ({ url: a.url ?? '', title: a.title ?? a.url })), emit)
    }
    const delta = choice.delta
    if (delta && delta.role !== 'tool') {
      if (delta.annotations?.length && !this.grounded) {
        const citations = delta.annotations
          .map((a) => ({ url: a.url_citation?.url ?? a.url ?? '', title: a.url_citation?.title ?? a.title }))
          .filter((c) => c.url)
        this.emitGrounding(citations, emit)
      }
      const reasoning = delta.reasoning_content ?? delta.reasoning ?? delta.reasoning_text
      if (reasoning) emit({ type: 'reasoning', data: reasoning })
      else if (delta.reasoning_details?.length) {
        const text = delta.reasoning_details.map((d) => d.text ?? '').join('')
        if (text) emit({ type: 'reasoning', data: text })
      }
      // Spark sends one call as an object; LiteLLM sends index -1 placeholders with nothing in them.
      const toolCalls = delta.tool_calls && !Array.isArray(delta.tool_calls) ? [delta.tool_calls as ToolCallDelta] : delta.tool_calls?.filter((c) => !(c && typeof c.index === 'number' && c.index < 0))
      if (toolCalls?.length) {
        try {
          emit({ type: 'tool_calls', data: this.tools.normalise(toolCalls) })
        } catch (error) {
          throw new ChunkParseError((error as Error).message, chunk)
        }
      }
      // Before the text they belong to: the local API writes them in that text's chunk.
      const logprobs = choice.logprobs?.content
      if (Array.isArray(logprobs) && logprobs.length > 0) emit({ type: 'logprobs', data: logprobs })
      const content = delta.content
      if (typeof content === 'string') {
        if (content) this.text(content, emit)
      } else if (Array.isArray(content)) {
        // Magistral thinking blocks (one reasoning event per chunk); Qwen-VL parts without `type`.
        let thinking = ''
        for (const part of content) {
          if (!part || typeof part !== 'object') continue
          if (part.type === 'thinking') thinking += (part.thinking ?? []).filter((t) => t.type === 'text').map((t) => t.text ?? '').join('')
          else if ((part.type === 'text' || part.type === undefined) && part.text) this.text(part.text, emit)
          else if (part.type === undefined && typeof part.image === 'string') emit({ type: 'text', data: `![image](${part.image})` })
        }
        if (thinking) emit({ type: 'reasoning', data: thinking })
      }
      if (delta.images?.length) {
        for (const image of delta.images) {
          if (!image || (typeof image !== 'string' && typeof image !== 'object')) continue
          const url = typeof image === 'string' ? image : typeof image.image_url === 'string' ? image.image_url : (image.image_url?.url ?? image.image_url?.image_url?.url ?? image.url)
          const parsed = url ? dataUrlToImage(url) : undefined
          if (parsed) emit({ type: 'base64_image', data: parsed })
        }
      }
    }
    if (choice.finish_reason) {
      this.finished = true
      if (this.splitter) for (const piece of this.splitter.flush()) emit(piece)
      if (choice.finish_reason === 'content_filter') {
        emit({ type: 'error', data: runtimeError('ProviderContentPolicyViolation', 'Provider blocked the response due to content policy.', this.options.provider, { finishReason: 'content_filter' }) })
      }
      emit({ type: 'stop', data: choice.finish_reason })
    }
  }

  flush(emit: (event: StreamEvent) => void): void {
    if (this.splitter) for (const piece of this.splitter.flush()) emit(piece)
    if (this.usage) emit({ type: 'usage', data: withCost(convertOpenAIUsage(this.usage, { provider: this.options.provider }), this.pricing, this.pricingContext) })
    this.usage = undefined
  }

  private text(content: string, emit: (event: StreamEvent) => void): void {
    if (content.includes('data:image/')) {
      const images: { image: string; mimeType: string }[] = []
      const rest = content
        .replace(MARKDOWN_IMAGE, (_m, url: string) => {
          const parsed = dataUrlToImage(url)
          if (parsed) images.push(parsed)
          return ''
        })
        .trim()
      if (images.length) {
        if (rest) this.plain(rest, emit)
        for (const image of images) emit({ type: 'base64_image', data: image })
        return
      }
    }
    this.plain(content, emit)
  }

  private plain(content: string, emit: (event: StreamEvent) => void): void {
    if (!this.splitter) {
      emit({ type: 'text', data: content })
      return
    }
    const pieces = this.splitter.push(content)
    for (let i = 0; i < pieces.length; i++) emit(pieces[i]!)
  }

  private grounding(chunk: OpenAIChatChunk, emit: (event: StreamEvent) => void): void {
    if (this.grounded) return
    const results = chunk.search_info?.search_results ?? chunk.search_results ?? chunk.web_search
    if (results?.length) {
      this.emitGrounding(results.map((r) => ({ title: r.title, url: r.url ?? r.link ?? '' })), emit)
      return
    }
    if (chunk.citations?.length) this.emitGrounding(chunk.citations.map((url) => ({ title: url, url })), emit)
  }

  private emitGrounding(citations: Array<{ title?: string; url: string }>, emit: (event: StreamEvent) => void): void {
    const clean: GroundingCitation[] = citations.filter((c) => c.url).map((c) => (c.title ? { title: c.title, url: c.url } : { url: c.url }))
    if (!clean.length) return
    this.grounded = true
    emit({ type: 'grounding', data: { citations: clean } })
  }
}
