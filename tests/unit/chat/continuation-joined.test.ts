import { describe, expect, it } from 'vitest'
import { toChatMessages } from '../../../src/core/chat/to-chat-messages'
import type { Message } from '../../../src/shared/data/message'
import { joinsAsOneText } from '../../../src/shared/chat/continuation'

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
const stopped = at('a1', 'assistant', 'The resp', { parentId: 'u', status: 'interrupted', meta: { interruptedBy: 'user' } })
const again = at('a2', 'assistant', 'onse is sh', { parentId: 'a1', status: 'interrupted' })
const done = at('a3', 'assistant', 'ort.\n\nA second paragraph.', { parentId: 'a2' })
const next = at('u2', 'user', 'thanks', { parentId: 'a3' })

describe('a stopped reply and its continuations', () => {
  it('are sent to the model as one assistant turn, joined as the reader sees them', () => {
    expect(toChatMessages('', [user, stopped, again, done, next])).toEqual([
      { role: 'user', content: 'explain' },
      { role: 'assistant', content: 'The response is short.\n\nA second paragraph.' },
      { role: 'user', content: 'thanks' }
    ])
    // Continuing again: the model sees what it wrote so far as one turn.
    expect(toChatMessages('', [user, stopped, again])).toEqual([
      { role: 'user', content: 'explain' },
      { role: 'assistant', content: 'The response is sh' }
    ])
  })

  it('the history joins exactly what the one definition joins (the chat view draws by it too)', () => {
    const toolStep = at('a2t', 'assistant', 'checking', { parentId: 'a1', toolCalls: [{ id: 't1', type: 'function', function: { name: 'search', arguments: '{}' } }] })
    const afterComplete = at('a4', 'assistant', ' more', { parentId: 'a3' })
    // The replies a reader sees: an assistant message starts one unless it joins the one before it.
    const replies = (history: Message[]) => history.filter((m, i) => m.role === 'assistant' && !joinsAsOneText(m, history[i - 1])).length
    for (const history of [[user, stopped, again, done], [user, stopped, again, done, afterComplete], [user, stopped, again]]) {
      expect(toChatMessages('', history).filter((m) => m.role === 'assistant')).toHaveLength(replies(history))
    }
    // A tool step after a stopped reply, and a reply after a finished one, are messages of their own.
    expect(joinsAsOneText(toolStep, stopped)).toBe(false)
    expect(joinsAsOneText(afterComplete, done)).toBe(false)
    expect(joinsAsOneText(again, stopped)).toBe(true)
  })
})
