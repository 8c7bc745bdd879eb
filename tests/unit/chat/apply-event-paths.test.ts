import { afterEach, describe, expect, it } from 'vitest'
import { applyStreamEvent, type LiveMessage } from '../../../src/shared/chat/apply-event'
import type { Message } from '../../../src/shared/data/message'
import type { StreamEvent } from '../../../src/shared/stream/events'
import { openTemp, seed } from '../store/helpers'

let env: ReturnType<typeof openTemp> | undefined
afterEach(() => env?.cleanup())

// One reply's events as a runtime yields them: reasoning with a late signature, text split
// mid-word, tool-call fragments merged by index (the second one has no id, as OpenAI streams
// them), an image, usage, speed, grounding, an error, and events a message does not hold.
const EVENTS: StreamEvent[] = [
  { type: 'reasoning', data: 'Let me ' },
  { type: 'reasoning', data: 'think.', signature: 'sig-1' },
  { type: 'reasoning', data: ' More.' },
  { type: 'text', data: 'The ans' },
  { type: 'text', data: '' },
  { type: 'text', data: 'wer is' },
  { type: 'tool_calls', data: [{ id: 'call_1', type: 'function', index: 0, function: { name: 'search', arguments: '{"q":' } }] },
  { type: 'tool_calls', data: [{ id: '', type: '', index: 0, function: { name: '', arguments: '"cats"}' } }] },
  { type: 'tool_calls', data: [{ id: 'call_2', type: 'function', index: 1, function: { name: 'open', arguments: '{}' } }] },
  { type: 'base64_image', data: { image: 'iVBORw0KGgo=', mimeType: 'image/png' } },
  { type: 'logprobs', data: [{ token: ' 42.', logprob: -0.1, bytes: [32, 52, 50, 46], top_logprobs: [] }] },
  { type: 'text', data: ' 42.' },
  { type: 'usage', data: { totalInputTokens: 3, totalOutputTokens: 4, totalTokens: 7 } },
  { type: 'speed', data: { tps: 12, ttft: 100 } },
  { type: 'grounding', data: { citations: [{ url: 'https://example.com' }] } },
  { type: 'error', data: { errorType: 'ProviderBizError', status: 500, message: 'upstream hiccup' } },
  { type: 'stop', data: 'stop' }
]

/**
 * What a message holds, without the renderer-only timing and the images the core stores as
 * files (so the text around an inline image is one run, as in the row).
 */
function held(message: Message | LiveMessage) {
  const { reasoningStartedAt: _s, reasoningDurationMs: _d, updatedAt: _u, status: _st, ...rest } = message as LiveMessage
  const content: Message['content'] = []
  for (const part of rest.content) {
    if (part.type === 'image_url') continue
    const last = content[content.length - 1]
    if (part.type === 'text' && last?.type === 'text') content[content.length - 1] = { type: 'text', text: last.text + part.text }
    else content.push(part)
  }
  return { ...rest, content }
}

describe('stream events are applied to a message in one place', () => {
  it('the store writer and the renderer produce the same message for the same events', () => {
    env = openTemp()
    const { conversation } = seed(env.store)
    const writer = env.store.messages.beginStreaming({ conversationId: conversation.id, providerId: 'openai', modelId: 'gpt-4o' })
    let live: LiveMessage = { ...writer.message }
    let clock = 1_000
    for (const event of EVENTS) {
      writer.apply(event)
      live = applyStreamEvent(live, event, (clock += 10))
    }
    expect(held(writer.message)).toEqual(held(live))
    // What both hold, spelled out, so that "the same" is also "right".
    expect(writer.message.content).toEqual([{ type: 'text', text: 'The answer is 42.' }])
    expect(writer.message.reasoning).toEqual({ text: 'Let me think. More.', signature: 'sig-1' })
    expect(writer.message.toolCalls).toEqual([
      { id: 'call_1', type: 'function', index: 0, function: { name: 'search', arguments: '{"q":"cats"}' } },
      { id: 'call_2', type: 'function', index: 1, function: { name: 'open', arguments: '{}' } }
    ])
    expect(writer.message.error).toMatchObject({ errorType: 'ProviderBizError', message: 'upstream hiccup' })
    expect(writer.message.usage).toMatchObject({ totalTokens: 7 })
    // The renderer shows the image inline at once; the core adds it as a stored file at the end.
    expect(live.content).toEqual([
      { type: 'text', text: 'The answer is' },
      { type: 'image_url', imageUrl: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
      { type: 'text', text: ' 42.' }
    ])
    // The renderer measured the reasoning: from the first reasoning event to the first text.
    expect(live.reasoningDurationMs).toBe(30)
    // And the row on disk is what the writer held.
    const final = writer.finish('error')
    expect(held(env.store.messages.require(final.id))).toEqual(held(writer.message))
  })

  it('events a message does not hold change neither path', () => {
    env = openTemp()
    const { conversation } = seed(env.store)
    const writer = env.store.messages.beginStreaming({ conversationId: conversation.id })
    const before: LiveMessage = { ...writer.message }
    for (const event of [{ type: 'stop', data: 'stop' }, { type: 'text', data: '' }] as StreamEvent[]) {
      writer.apply(event)
      expect(applyStreamEvent(before, event)).toBe(before)
    }
    expect(writer.message).toEqual(before)
  })
})

describe('a retry is shown on the message while it waits, never stored (issue 17)', () => {
  const retry: StreamEvent = { type: 'retry', data: { attempt: 2, maxAttempts: 3, waitMs: 4000, reason: 'rate limited (429)', kind: 'rate_limit', status: 429 } }

  it('both paths hold the notice until the first content, and the row never has it', () => {
    env = openTemp()
    const { conversation } = seed(env.store)
    const writer = env.store.messages.beginStreaming({ conversationId: conversation.id, providerId: 'openai', modelId: 'gpt-4o' })
    let live: LiveMessage = { ...writer.message }
    writer.apply(retry)
    live = applyStreamEvent(live, retry)
    expect(live.retrying).toEqual(retry.data)
    expect(writer.message.retrying).toEqual(retry.data)
    // Usage or speed does not end the wait; the first text does.
    const usage: StreamEvent = { type: 'usage', data: { totalInputTokens: 1, totalOutputTokens: 0, totalTokens: 1 } }
    writer.apply(usage)
    live = applyStreamEvent(live, usage)
    expect(live.retrying).toBeDefined()
    const text: StreamEvent = { type: 'text', data: 'Hi' }
    writer.apply(text)
    live = applyStreamEvent(live, text)
    expect(live.retrying).toBeUndefined()
    expect(writer.message.retrying).toBeUndefined()
    expect(live.content).toEqual([{ type: 'text', text: 'Hi' }])
    const final = writer.finish('complete')
    expect(env.store.messages.require(final.id).retrying).toBeUndefined()
  })

  it('retries that run out end with the error, and the notice goes with them', () => {
    let live: LiveMessage = { id: 'm', conversationId: 'c', role: 'assistant', content: [], status: 'streaming', createdAt: 0, updatedAt: 0 }
    live = applyStreamEvent(live, retry)
    live = applyStreamEvent(live, { type: 'error', data: { errorType: 'QuotaLimitReached', status: 429, message: 'Rate limit reached' } })
    expect(live.retrying).toBeUndefined()
    expect(live.error?.errorType).toBe('QuotaLimitReached')
    live = applyStreamEvent(live, retry)
    live = applyStreamEvent(live, { type: 'stop', data: 'error' })
    expect(live.retrying).toBeUndefined()
  })

  it('a message saved mid-wait (a streaming flush) does not keep the notice on disk', () => {
    env = openTemp()
    const { conversation } = seed(env.store)
    const writer = env.store.messages.beginStreaming({ conversationId: conversation.id, providerId: 'openai', modelId: 'gpt-4o' })
    writer.apply(retry)
    const final = writer.finish('interrupted')
    expect(env.store.messages.require(final.id).retrying).toBeUndefined()
  })
})
