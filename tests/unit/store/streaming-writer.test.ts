import { afterEach, describe, expect, it, vi } from 'vitest'
import { openStore } from '../../../src/core/store'
import { openTemp, seed } from './helpers'

let env: ReturnType<typeof openTemp>
afterEach(() => env?.cleanup())

/** What another reader would see: the row as it is on disk, not the writer's memory. */
const onDisk = (id: string) => env.store.messages.require(id)
const textOf = (id: string) => onDisk(id).content.map((p) => (p.type === 'text' ? p.text : '')).join('')

describe('streaming a reply into a row', () => {
  it('inserts a streaming row at once and writes appends only when the flush interval has passed', async () => {
    env = openTemp()
    const { conversation } = seed(env.store)
    const writer = env.store.messages.beginStreaming({ conversationId: conversation.id, providerId: 'openai', modelId: 'gpt' }, { flushIntervalMs: 150 })
    expect(onDisk(writer.id)).toMatchObject({ status: 'streaming', role: 'assistant', content: [] })
    writer.appendText('Hel')
    writer.appendText('lo')
    expect(textOf(writer.id)).toBe('')
    await vi.waitFor(() => expect(textOf(writer.id)).toBe('Hello'))
    expect(onDisk(writer.id).status).toBe('streaming')
  })

  it('applies runtime events: text, reasoning, merged tool-call fragments, usage, speed, grounding', () => {
    env = openTemp()
    const { conversation } = seed(env.store)
    const writer = env.store.messages.beginStreaming({ conversationId: conversation.id })
    writer.apply({ type: 'reasoning', data: 'Let me ' })
    writer.apply({ type: 'reasoning', data: 'think', signature: 'sig1' })
    writer.apply({ type: 'text', data: 'Answer' })
    writer.apply({ type: 'tool_calls', data: [{ id: 'call_1', type: 'function', index: 0, function: { name: 'search', arguments: '{"q":' } }] })
    writer.apply({ type: 'tool_calls', data: [{ id: '', type: '', index: 0, function: { name: '', arguments: '"cats"}' } }] })
    writer.apply({ type: 'usage', data: { totalInputTokens: 3, totalOutputTokens: 4, totalTokens: 7 } })
    writer.apply({ type: 'speed', data: { tps: 12, ttft: 100 } })
    writer.apply({ type: 'grounding', data: { citations: [{ url: 'https://e.com' }] } })
    expect(writer.apply({ type: 'stop', data: 'stop' })).toBe(false)
    const final = writer.finish('complete', { cost: { currency: 'USD', total: 0.001 } })
    expect(onDisk(writer.id)).toEqual(final)
    expect(final).toMatchObject({
      status: 'complete',
      content: [{ type: 'text', text: 'Answer' }],
      reasoning: { text: 'Let me think', signature: 'sig1' },
      toolCalls: [{ id: 'call_1', index: 0, function: { name: 'search', arguments: '{"q":"cats"}' } }],
      usage: { totalTokens: 7 },
      speed: { tps: 12 },
      cost: { total: 0.001 }
    })
    writer.appendText('late')
    expect(textOf(writer.id)).toBe('Answer')
  })

  it('finishes as error with the error to show, and as interrupted keeping what arrived', () => {
    env = openTemp()
    const { conversation } = seed(env.store)
    const a = env.store.messages.beginStreaming({ conversationId: conversation.id })
    a.appendText('partial')
    a.finish('error', { error: { errorType: 'InsufficientQuota', message: 'Quota used up', status: 429 } })
    expect(onDisk(a.id)).toMatchObject({ status: 'error', error: { errorType: 'InsufficientQuota' }, content: [{ text: 'partial' }] })
    const b = env.store.messages.beginStreaming({ conversationId: conversation.id })
    b.appendText('half a sent')
    b.finish('interrupted')
    expect(onDisk(b.id)).toMatchObject({ status: 'interrupted', content: [{ text: 'half a sent' }] })
  })

  it('at the next start, a reply left streaming becomes interrupted with what was flushed, and a notice says so', () => {
    env = openTemp()
    const { conversation } = seed(env.store)
    const writer = env.store.messages.beginStreaming({ conversationId: conversation.id })
    writer.appendText('flushed part')
    writer.flush()
    writer.appendText(' never flushed')
    // A crash: the database goes away without the store's clean close (which would save the rest).
    env.store.db.sqlite.close()
    const reopened = openStore({ dataDir: env.dir, dailyBackupMs: 0 })
    env.store = reopened.store
    expect(reopened.notices.join(' ')).toMatch(/interrupted/)
    expect(onDisk(writer.id)).toMatchObject({ status: 'interrupted', content: [{ type: 'text', text: 'flushed part' }] })
  })

  it('a flush after the row was finished elsewhere does not resurrect it, and fails loudly', () => {
    env = openTemp()
    const { conversation } = seed(env.store)
    const writer = env.store.messages.beginStreaming({ conversationId: conversation.id })
    expect(env.store.messages.repairStreaming()).toBe(1)
    writer.appendText('late text')
    expect(() => writer.flush()).toThrow(/changed in the database by something else/)
    expect(onDisk(writer.id)).toMatchObject({ status: 'interrupted', content: [] })
    // The next event fails the reply instead of streaming on into dropped writes…
    expect(() => writer.apply({ type: 'text', data: 'more' })).toThrow(/second Switchboard/)
    // …and its end says so on the message.
    expect(writer.finish('complete').error?.errorType).toBe('ReplyChangedElsewhere')
    expect(onDisk(writer.id).status).toBe('interrupted')
  })

  it('streamed text is searchable once flushed', () => {
    env = openTemp()
    const { conversation } = seed(env.store)
    const writer = env.store.messages.beginStreaming({ conversationId: conversation.id })
    writer.appendText('the quokka smiles')
    expect(env.store.search.search('quokka')).toHaveLength(0)
    writer.flush()
    expect(env.store.search.search('quokka').map((h) => h.messageId)).toEqual([writer.id])
  })
})
