import { describe, expect, it } from 'vitest'
import { joinContinuations } from '../../../src/renderer/features/chat/joined-reply'
import { messageText, type Message } from '../../../src/shared/data/message'

const at = (id: string, role: Message['role'], text: string, extra: Partial<Message> = {}): Message => ({
  id,
  conversationId: 'c',
  role,
  content: [{ type: 'text', text }],
  status: 'complete',
  createdAt: 0,
  updatedAt: 0,
  ...extra
})

// A reply stopped in the middle of a word, continued twice.
const user = at('u', 'user', 'explain')
const stopped = at('a1', 'assistant', 'The resp', { parentId: 'u', status: 'interrupted', meta: { interruptedBy: 'user' }, cost: { currency: 'USD', total: 0.01 }, usage: { totalOutputTokens: 2 } })
const again = at('a2', 'assistant', 'onse is sh', { parentId: 'a1', status: 'interrupted', cost: { currency: 'USD', total: 0.02 }, usage: { totalOutputTokens: 3 } })
const done = at('a3', 'assistant', 'ort.\n\nA second paragraph.', { parentId: 'a2', cost: { currency: 'USD', total: 0.03 }, usage: { totalOutputTokens: 5 } })
const next = at('u2', 'user', 'thanks', { parentId: 'a3' })

describe('a stopped reply and its continuations', () => {
  it('are one row of one text on screen, with the last part’s status and the summed usage and cost', () => {
    const rows = joinContinuations([user, stopped, again, done, next])
    expect(rows.map((r) => r.parts.map((p) => p.id))).toEqual([['u'], ['a1', 'a2', 'a3'], ['u2']])
    const view = rows[1]!.view
    expect(messageText(view.content)).toBe('The response is short.\n\nA second paragraph.')
    expect(view.id).toBe('a1')
    expect(view.status).toBe('complete')
    expect(view.meta?.interruptedBy).toBeUndefined()
    expect(view.cost?.total).toBeCloseTo(0.06)
    expect(view.usage?.totalOutputTokens).toBe(10)
    // A message standing alone is passed through as it is (its view is the message itself).
    expect(rows[0]!.view).toBe(user)
  })

  it('while the last part is stopped, the joined reply is stopped (its Continue goes on from the last part)', () => {
    const [, row] = joinContinuations([user, stopped, again])
    expect(row!.view.status).toBe('interrupted')
    expect(row!.parts.at(-1)!.id).toBe('a2')
    expect(messageText(row!.view.content)).toBe('The response is sh')
  })

  it('a reply that was not stopped is not joined with the reply under it', () => {
    const toolStep = at('t', 'assistant', 'calling', { parentId: 'u', toolCalls: [{ id: 'x', type: 'function', function: { name: 'f', arguments: '{}' } }] })
    const rows = joinContinuations([user, toolStep, at('r', 'assistant', 'result', { parentId: 't' })])
    expect(rows).toHaveLength(3)
  })

  it('shows the translation of the whole reply, kept on its first part, not a part’s own', () => {
    const translated = { ...stopped, meta: { ...stopped.meta, translations: { fr: 'La réponse est courte.' } } }
    const partOnly = { ...done, meta: { translations: { fr: 'ort.' } } }
    const [, row] = joinContinuations([user, translated, again, partOnly])
    expect(row!.view.meta?.translations).toEqual({ fr: 'La réponse est courte.' })
    const [, untranslated] = joinContinuations([user, stopped, again, partOnly])
    expect(untranslated!.view.meta?.translations).toBeUndefined()
  })
})
