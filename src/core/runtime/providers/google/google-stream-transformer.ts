import type { Grounding, StreamEvent, ToolCall } from '../../../../shared/stream/events'
import type { UsageRecord } from '../../../../shared/stream/usage'
import { convertGoogleUsage, type GoogleUsageMetadata } from './google-usage'
import { blockReasonMessage, isBlockingFinishReason } from './google-block-reasons'

/** The parts of a `GenerateContentResponse` chunk we read (Gemini API and Vertex AI alike). */
export interface GoogleStreamChunk {
  candidates?: Array<{
    content?: { parts?: GooglePart[]; role?: string }
    finishReason?: string
    finishMessage?: string
    groundingMetadata?: GoogleGroundingMetadata
  }>
  promptFeedback?: { blockReason?: string; blockReasonMessage?: string }
  usageMetadata?: GoogleUsageMetadata
}

export interface GooglePart {
  text?: string
  thought?: boolean
  thoughtSignature?: string
  inlineData?: { mimeType?: string; data?: string }
  functionCall?: { id?: string; name?: string; args?: Record<string, unknown> }
}

interface GoogleGroundingMetadata {
  groundingChunks?: Array<{ web?: { uri?: string; title?: string } }>
  webSearchQueries?: string[]
}

export interface GoogleStreamTransformer {
  push(chunk: GoogleStreamChunk): StreamEvent[]
  /** True once a candidate carried a finishReason or the prompt was blocked. */
  readonly finished: boolean
}

export interface GoogleStreamTransformerOptions {
  provider?: string
  /** Tool-call ids Gemini does not send are generated; injectable for deterministic tests. */
  makeToolCallId?: (name: string, index: number) => string
}

const randomSuffix = () => Math.random().toString(36).slice(2, 10)

function toGrounding(meta: GoogleGroundingMetadata | undefined): Grounding | undefined {
  if (!meta) return undefined
  const citations = (meta.groundingChunks ?? [])
    .filter((c) => c.web?.uri)
    .map((c) => ({ title: c.web!.title, url: c.web!.uri!, favicon: c.web!.title }))
  const searchQueries = (meta.webSearchQueries ?? []).filter((q) => q.trim() !== '')
  if (citations.length === 0 && searchQueries.length === 0) return undefined
  const grounding: Grounding = {}
  if (citations.length) grounding.citations = citations
  if (searchQueries.length) grounding.searchQueries = searchQueries
  return grounding
}

/**
 * Gemini stream chunks → {@link StreamEvent}s.
 *
 * Function calls arrive whole (never as argument fragments); each gets the next index so
 * calls in separate chunks are not fused by the tool-call merger. Usage is reported once,
 * with the finishing chunk, because Gemini repeats cumulative usage on every chunk.
 */
export function createGoogleStreamTransformer(options: GoogleStreamTransformerOptions = {}): GoogleStreamTransformer {
  const provider = options.provider ?? 'google'
  const makeId = options.makeToolCallId ?? ((name, index) => `${name}_${index}_${randomSuffix()}`)
  let toolCount = 0
  let finished = false
  let lastUsage: UsageRecord | undefined

  const push = (chunk: GoogleStreamChunk): StreamEvent[] => {
    const out: StreamEvent[] = []
    if (chunk.usageMetadata) lastUsage = convertGoogleUsage(chunk.usageMetadata)

    const blockReason = chunk.promptFeedback?.blockReason
    if (blockReason) {
      finished = true
      return [
        {
          type: 'error',
          data: {
            errorType: 'ProviderBizError',
            message: blockReasonMessage(blockReason),
            provider,
            detail: { blockReason, ...(chunk.promptFeedback?.blockReasonMessage ? { blockReasonMessage: chunk.promptFeedback.blockReasonMessage } : {}) }
          }
        }
      ]
    }

    const candidate = chunk.candidates?.[0]
    if (!candidate) return out

    const calls: ToolCall[] = []
    for (const part of candidate.content?.parts ?? []) {
      if (part.functionCall) {
        const name = part.functionCall.name ?? ''
        const call: ToolCall = {
          id: part.functionCall.id ?? makeId(name, toolCount),
          type: 'function',
          index: toolCount++,
          function: { name, arguments: JSON.stringify(part.functionCall.args ?? {}) }
        }
        if (part.thoughtSignature) call.thoughtSignature = part.thoughtSignature
        calls.push(call)
        continue
      }
      if (part.inlineData?.data) {
        // Images drawn while thinking are drafts; only the final image is the answer.
        if (!part.thought) {
          out.push({ type: 'base64_image', data: { image: part.inlineData.data, mimeType: part.inlineData.mimeType ?? 'image/png' } })
        }
        continue
      }
      if (typeof part.text === 'string') {
        if (part.thought) {
          if (part.text || part.thoughtSignature) {
            out.push(part.thoughtSignature ? { type: 'reasoning', data: part.text, signature: part.thoughtSignature } : { type: 'reasoning', data: part.text })
          }
        } else if (part.text) {
          out.push({ type: 'text', data: part.text })
        }
      }
    }
    if (calls.length) out.push({ type: 'tool_calls', data: calls })

    const grounding = toGrounding(candidate.groundingMetadata)
    if (grounding) out.push({ type: 'grounding', data: grounding })

    const reason = candidate.finishReason
    if (reason) {
      finished = true
      if (isBlockingFinishReason(reason)) {
        if (lastUsage) out.push({ type: 'usage', data: lastUsage })
        out.push({
          type: 'error',
          data: {
            errorType: 'ProviderBizError',
            message: blockReasonMessage(reason),
            provider,
            detail: { finishReason: reason, ...(candidate.finishMessage ? { finishMessage: candidate.finishMessage } : {}) }
          }
        })
        return out
      }
      out.push({ type: 'stop', data: reason })
      if (lastUsage) out.push({ type: 'usage', data: lastUsage })
    }
    return out
  }

  return {
    push,
    get finished() {
      return finished
    }
  }
}
