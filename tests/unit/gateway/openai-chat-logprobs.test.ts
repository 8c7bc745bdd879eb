import { describe, expect, it } from 'vitest'
import { ChatCompletionChunks, ChatCompletionCollector } from '../../../src/core/gateway/wire/openai-chat'
import type { StreamEvent, TokenLogprob } from '../../../src/shared/stream/events'

const lp = (token: string, logprob: number): TokenLogprob => ({ token, logprob, bytes: [...Buffer.from(token)], top_logprobs: [] })
const choices = (chunks: string[]) => chunks.map((c) => (JSON.parse(c) as { choices: Array<{ delta: Record<string, unknown>; logprobs: unknown; finish_reason: string | null }> }).choices[0])

// The gateway's Chat Completions encoder: a `logprobs` event goes into the chunk of the text after it.
describe('logprobs in the chat-completion chunks', () => {
  it('are written in the chunk of the text they precede; a text without them keeps the fast path', () => {
    const chunks = new ChatCompletionChunks('chatcmpl-1', 'm', 1)
    const out = [...chunks.push({ type: 'logprobs', data: [lp('Hi', -0.5)] }), ...chunks.push({ type: 'text', data: 'Hi' })]
    expect(choices(out)).toEqual([
      { index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null },
      { index: 0, delta: { content: 'Hi' }, logprobs: { content: [lp('Hi', -0.5)], refusal: null }, finish_reason: null }
    ])
    const plain: StreamEvent = { type: 'text', data: ' there' }
    expect(chunks.textJson(plain)).toBe('" there"')
    chunks.push({ type: 'logprobs', data: [lp('!', -1)] })
    expect(chunks.textJson({ type: 'text', data: '!' })).toBeUndefined()
  })

  it('left without a text (it went to reasoning, or the reply ended) they get a chunk of their own, after the role chunk', () => {
    const chunks = new ChatCompletionChunks('chatcmpl-1', 'm', 1)
    chunks.push({ type: 'logprobs', data: [lp('<think>', -0.1)] })
    const out = [...chunks.push({ type: 'reasoning', data: 'hmm' }), ...chunks.push({ type: 'logprobs', data: [lp('x', -2)] }), ...chunks.push({ type: 'stop', data: 'stop' }), ...chunks.finish()]
    expect(choices(out)).toEqual([
      { index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null },
      { index: 0, delta: {}, logprobs: { content: [lp('<think>', -0.1)], refusal: null }, finish_reason: null },
      { index: 0, delta: { reasoning_content: 'hmm' }, logprobs: null, finish_reason: null },
      { index: 0, delta: {}, logprobs: { content: [lp('x', -2)], refusal: null }, finish_reason: null },
      { index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }
    ])
  })

  it('a non-streamed answer collects them into choices[0].logprobs.content; without them it is null', () => {
    const collector = new ChatCompletionCollector()
    for (const event of [{ type: 'logprobs', data: [lp('a', -1)] }, { type: 'text', data: 'a' }, { type: 'logprobs', data: [lp('b', -2)] }, { type: 'text', data: 'b' }] as StreamEvent[]) collector.push(event)
    const result = collector.result('id', 'm', 1) as { choices: Array<{ logprobs: unknown; message: { content: string } }> }
    expect(result.choices[0]).toMatchObject({ message: { content: 'ab' }, logprobs: { content: [lp('a', -1), lp('b', -2)], refusal: null } })
    const none = new ChatCompletionCollector()
    none.push({ type: 'text', data: 'a' })
    expect((none.result('id', 'm', 1) as { choices: Array<{ logprobs: unknown }> }).choices[0]!.logprobs).toBeNull()
  })
})
