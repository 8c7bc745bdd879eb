import { describe, expect, it, afterAll } from 'vitest'
import type { StreamEvent, ToolCall } from '../../../src/shared/stream/events'
import { createAnthropicStreamTransformer, type AnthropicStreamChunk } from '../../../src/core/runtime/providers/anthropic/anthropic-stream-transformer'
import { createGoogleStreamTransformer, type GoogleStreamChunk } from '../../../src/core/runtime/providers/google/google-stream-transformer'
import { createBedrockLlamaStreamTransformer, type BedrockLlamaChunk } from '../../../src/core/runtime/providers/bedrock/bedrock-llama-stream-transformer'
import { loadStreamVectors, type StreamVectorCase } from './conformance-vectors'

/**
 * Conformance of our stream transformers with the recorded reference behaviour.
 *
 * Normalisation (legitimate differences, applied to every case):
 * - the reference's `data` events (raw chunk echoes) and empty text/reasoning deltas carry
 *   nothing for the user and are not part of our event union;
 * - `reasoning_signature` / `flagged_reasoning_signature` are our `reasoning` events with
 *   `signature` (and `redacted` for the flagged kind); Gemini's `reasoning_part` /
 *   `content_part` text parts are our `reasoning` / `text`, image content parts `base64_image`;
 * - the reference's thought-signature scoping prefix is its own storage format: stripped;
 * - a stream cut before the provider's end marker: see `endedUnexpectedly`;
 * - generated tool-call ids are "any string" (README), and Anthropic argument deltas are
 *   compared by index and arguments (ours repeat the id, the reference leaves it out).
 */
type Exception = { reason: string; patch?: (expected: Normal[], chunks: unknown[]) => Normal[]; skip?: true }

/** Every deliberate difference, in one place. */
const EXCEPTIONS: Record<string, Exception> = {
  // Anthropic: message_delta output counts are cumulative (Anthropic streaming docs), so we
  // do not add message_start's provisional output count; and we emit one stop, not two.
  'AnthropicStream > should handle tool use event and ReadableStream input': { reason: 'cumulative output tokens', patch: (e, c) => anthropicCumulative(e, c) },
  'AnthropicStream > should handle parallel tools use event and ReadableStream input': { reason: 'cumulative output tokens; single stop', patch: (e, c) => anthropicCumulative(dropSecondStop(e), c) },
  'AnthropicStream > should handle prompts context caching': { reason: 'cumulative output tokens; single stop', patch: (e, c) => anthropicCumulative(dropSecondStop(e), c) },
  'AnthropicStream > thinking > should handle normal thinking ': { reason: 'cumulative output tokens; single stop', patch: (e, c) => anthropicCumulative(dropSecondStop(e), c) },
  'AnthropicStream > thinking > should handle flagged thinking ': { reason: 'cumulative output tokens; single stop', patch: (e, c) => anthropicCumulative(dropSecondStop(e), c) },
  // Gemini
  'GoogleGenerativeAIStream > Special content types > should handle image': { reason: 'recording has no output_events (upstream harness error); covered by the fake-server test', skip: true },
  'GoogleGenerativeAIStream > Error handling > should pass through injected lobe error marker': { reason: 'reference-internal error marker, not a provider wire format', skip: true },
  'GoogleGenerativeAIStream > Error handling > should classify IMAGE_PROHIBITED_CONTENT as a content policy violation': {
    reason: 'our error catalogue has no ProviderContentPolicyViolation; block reasons are ProviderBizError (providers.md §8)',
    patch: (e) => e.map((x) => (x.type === 'error' ? { ...x, errorType: 'ProviderBizError' } : x))
  },
  'GoogleGenerativeAIStream > Error handling > should handle promptFeedback with blockReason (PROHIBITED_CONTENT)': { reason: 'same type mapping', patch: (e) => e.map((x) => (x.type === 'error' ? { ...x, errorType: 'ProviderBizError' } : x)) },
  'GoogleGenerativeAIStream > Error handling > should handle blocked candidate finishReason (PROHIBITED_CONTENT)': { reason: 'same type mapping', patch: (e) => e.map((x) => (x.type === 'error' ? { ...x, errorType: 'ProviderBizError' } : x)) },
  'GoogleGenerativeAIStream > Thought filtering logic > should scope thoughtSignature across reasoning and content parts #0': {
    reason: 'text-part (non-thought) signatures are not kept: Gemini needs them back only on function calls',
    patch: (e) => e.map((x) => (x.type === 'text' ? { type: 'text', data: x.data } : x))
  },
  'GoogleGenerativeAIStream > Multimodal parts (reasoning_part and content_part) > should handle mixed reasoning text and reasoning image parts #0': {
    reason: 'draft images inside thinking are not shown; the final image keeps no signature',
    patch: (e) => e.filter((x) => !(x.type === 'reasoning_image')).map((x) => (x.type === 'base64_image' ? { type: x.type, data: x.data } : x))
  },
  'GoogleGenerativeAIStream (Vertex AI scenarios) > should handle reasoning with image parts': {
    reason: 'draft images inside thinking are not shown',
    patch: (e) => e.filter((x) => !(x.type === 'reasoning_image'))
  },
  // Bedrock Llama
  'AWSBedrockLlamaStream > should transform Bedrock Llama stream to protocol stream': {
    reason: "the provider's stop_reason is forwarded (stop/length) instead of the constant 'finished'",
    patch: (e) => e.map((x) => (x.type === 'stop' ? { type: 'stop', data: 'stop' } : x))
  },
  'AWSBedrockLlamaStream > should transform Bedrock Llama AsyncIterator to protocol stream': { reason: 'tests SDK response plumbing, no chunks recorded; covered by the fake Bedrock server test', skip: true },
  'AWSBedrockLlamaStream > should handle Bedrock response with chunk property': { reason: 'same: no chunks recorded', skip: true }
}

type Normal = { type: string; [k: string]: unknown }

const SCOPE_PREFIX = /^lobe-scoped-state-v1:thought_signature:[^:]+:/
const unscope = (s: unknown) => (typeof s === 'string' ? s.replace(SCOPE_PREFIX, '') : undefined)
const isGeneratedId = (id: string, name: string) => id.startsWith(`${name}_`) && /^\d+_.+$/.test(id.slice(name.length + 1))

function normTool(c: Partial<ToolCall> & { function?: { name?: string; arguments?: string } }, google: boolean) {
  const name = c.function?.name || undefined
  const out: Record<string, unknown> = { arguments: c.function?.arguments ?? '' }
  if (!google) out.index = c.index
  if (name) {
    out.name = name
    out.id = typeof c.id === 'string' && google && isGeneratedId(c.id, name) ? '<generated>' : c.id
  }
  const sig = unscope(c.thoughtSignature)
  if (sig) out.thoughtSignature = sig
  return out
}

function normaliseExpected(events: NonNullable<StreamVectorCase['output_events']>, google: boolean): Normal[] {
  const out: Normal[] = []
  for (const { event, data } of events) {
    const d = data as Record<string, unknown>
    switch (event) {
      case 'data':
        break
      case 'text':
      case 'reasoning':
        if (data !== '') out.push({ type: event, data })
        break
      case 'reasoning_signature':
        out.push({ type: 'reasoning', data: '', signature: data })
        break
      case 'flagged_reasoning_signature':
        out.push({ type: 'reasoning', data: '', signature: data, redacted: true })
        break
      case 'reasoning_part':
        if (d.partType === 'image') out.push({ type: 'reasoning_image' })
        else if (d.content !== '') out.push({ type: 'reasoning', data: d.content, ...(d.thoughtSignature ? { signature: unscope(d.thoughtSignature) } : {}) })
        break
      case 'content_part':
        if (d.partType === 'image') out.push({ type: 'base64_image', data: { image: d.content, mimeType: d.mimeType } })
        else if (d.content !== '') out.push({ type: 'text', data: d.content, ...(d.thoughtSignature ? { signature: unscope(d.thoughtSignature) } : {}) })
        break
      case 'tool_calls': {
        const calls = (data as ToolCall[]).map((c) => normTool(c, google)).filter((c) => c.arguments !== '' || c.name)
        if (calls.length) out.push({ type: 'tool_calls', calls })
        break
      }
      case 'grounding': {
        const g: Record<string, unknown> = {}
        if (d.citations) g.citations = d.citations
        if (d.searchQueries) g.searchQueries = d.searchQueries
        if (Object.keys(g).length) out.push({ type: 'grounding', data: g })
        break
      }
      case 'error': {
        const body = (d.body ?? {}) as Record<string, unknown>
        out.push({ type: 'error', errorType: d.type ?? d.errorType, message: body.message ?? d.message })
        break
      }
      default:
        out.push({ type: event, data })
    }
  }
  return out
}

function normaliseOurs(events: StreamEvent[], google: boolean): Normal[] {
  return events.map((e): Normal => {
    switch (e.type) {
      case 'tool_calls':
        return { type: 'tool_calls', calls: e.data.map((c) => normTool(c, google)) }
      case 'reasoning':
        return { type: 'reasoning', data: e.data, ...(e.signature ? { signature: e.signature } : {}), ...(e.redacted ? { redacted: true } : {}) }
      case 'base64_image':
        return { type: 'base64_image', data: { image: e.data.image, mimeType: e.data.mimeType } }
      case 'error':
        return { type: 'error', errorType: e.data.errorType, message: e.data.message }
      default:
        return { type: e.type, data: e.data }
    }
  })
}

function dropSecondStop(events: Normal[]): Normal[] {
  let seen = false
  return events.filter((e) => {
    if (e.type !== 'stop') return true
    if (seen) return false
    seen = true
    return true
  })
}

/** Replaces the reference's summed output count with the last message_delta count. */
function anthropicCumulative(events: Normal[], chunks: unknown[]): Normal[] {
  const last = [...(chunks as AnthropicStreamChunk[])].reverse().find((c) => c.type === 'message_delta' && c.usage?.output_tokens != null)
  return events.map((e) => {
    if (e.type !== 'usage' || !last) return e
    const u = { ...(e.data as Record<string, number>) }
    u.totalOutputTokens = last.usage!.output_tokens!
    u.totalTokens = (u.totalInputTokens ?? 0) + u.totalOutputTokens
    return { type: 'usage', data: u }
  })
}

function run(fn: string, chunks: unknown[]): { events: StreamEvent[]; finished: boolean } {
  if (fn === 'AnthropicStream') {
    const t = createAnthropicStreamTransformer()
    return { events: chunks.flatMap((c) => t.push(c as AnthropicStreamChunk)), finished: t.finished }
  }
  if (fn === 'GoogleGenerativeAIStream') {
    const t = createGoogleStreamTransformer({ makeToolCallId: (name, i) => `${name}_${i}_gen` })
    return { events: chunks.flatMap((c) => t.push(c as GoogleStreamChunk)), finished: t.finished }
  }
  if (fn === 'AWSBedrockLlamaStream') {
    const t = createBedrockLlamaStreamTransformer()
    return { events: chunks.flatMap((c) => t.push(c as BedrockLlamaChunk)), finished: t.finished }
  }
  throw new Error(`no adapter for ${fn}`)
}

/**
 * The reference reports a stream that ends without Gemini's finishReason as an error event.
 * Ours reports it in runChatStream (status interrupted) from the transformer's `finished`
 * flag, so the recorded error becomes an assertion on that flag.
 */
const endedUnexpectedly = (e: Normal) => e.type === 'error' && e.errorType === 'StreamChunkError' && e.message === 'Stream ended unexpectedly'

const tally = { pass: 0, exception: 0, skipped: 0, total: 0 }
const skippedList: string[] = []

for (const file of ['anthropic', 'google-gemini', 'google-vertex', 'bedrock-llama']) {
  describe(`stream conformance: ${file}`, () => {
    for (const vector of loadStreamVectors(file)) {
      const exception = EXCEPTIONS[vector.case]
      tally.total++
      if (exception?.skip || !vector.output_events || !vector.input_chunks) {
        tally.skipped++
        skippedList.push(`${vector.case} — ${exception?.reason ?? 'no recorded input/output'}`)
        it.todo(`${vector.case} — not compared, because ${exception?.reason ?? 'the recording has no input or output to compare'}`)
        continue
      }
      it(vector.case, () => {
        const google = vector.fn === 'GoogleGenerativeAIStream'
        const chunks = vector.input_chunks!
        let expected = normaliseExpected(vector.output_events!, google)
        if (exception?.patch) expected = exception.patch(expected, chunks)
        const interrupted = expected.some(endedUnexpectedly)
        expected = expected.filter((e) => !endedUnexpectedly(e))
        const result = run(vector.fn, chunks)
        expect(normaliseOurs(result.events, google)).toEqual(expected)
        if (interrupted) expect(result.finished).toBe(false)
        if (exception) tally.exception++
        else tally.pass++
      })
    }
  })
}

afterAll(() => {
  const applicable = tally.total - tally.skipped
  console.log(
    `[stream conformance] ${tally.pass + tally.exception}/${applicable} applicable cases pass ` +
      `(${tally.pass} exact, ${tally.exception} with a listed exception); ${tally.skipped} not applicable:\n  ` +
      skippedList.join('\n  ')
  )
})
