import { describe, expect, it } from 'vitest'
import { branchPositions, isContinuation, messageSetKey, replyChain, sortConversations, visiblePath } from '../../../src/renderer/features/chat/branches'
import type { Message } from '../../../src/shared/data/message'
import type { Conversation } from '../../../src/shared/data/conversation'

const msg = (id: string, parentId?: string): Message => ({
  id,
  conversationId: 'c',
  ...(parentId ? { parentId } : {}),
  role: 'user',
  content: [{ type: 'text', text: id }],
  status: 'complete',
  createdAt: 0,
  updatedAt: 0
})

// u1 → a1 → u2 → a2, with a1' (a regenerated answer to u1) and u2' (an edit of u2).
const tree = [msg('u1'), msg('a1', 'u1'), msg('u2', 'a1'), msg('a2', 'u2'), msg('a1b', 'u1'), msg('u2b', 'a1')]

describe('branches', () => {
  it('shows the newest sibling at each step by default', () => {
    expect(visiblePath(tree, {}).map((m) => m.id)).toEqual(['u1', 'a1b'])
  })

  it('follows the chosen branch, then the newest below it', () => {
    expect(visiblePath(tree, { u1: 'a1' }).map((m) => m.id)).toEqual(['u1', 'a1', 'u2b'])
    expect(visiblePath(tree, { u1: 'a1', a1: 'u2' }).map((m) => m.id)).toEqual(['u1', 'a1', 'u2', 'a2'])
  })

  it('ignores a choice that is not a child of that parent', () => {
    expect(visiblePath(tree, { u1: 'a2' }).map((m) => m.id)).toEqual(['u1', 'a1b'])
  })

  it('gives every message its position among its siblings in one pass', () => {
    const positions = branchPositions(tree)
    expect(positions.get('a1')).toEqual([0, 2])
    expect(positions.get('a1b')).toEqual([1, 2])
    expect(positions.get('u2b')).toEqual([1, 2])
    expect(positions.get('a2')).toEqual([0, 1])
    expect(positions.get('u1')).toEqual([0, 1])
  })

  it('keys the message set by count and ends, not by content', () => {
    const streaming = tree.map((m) => (m.id === 'u2b' ? { ...m, content: [{ type: 'text' as const, text: 'longer now' }] } : m))
    expect(messageSetKey(streaming)).toBe(messageSetKey(tree))
    expect(messageSetKey([...tree, msg('a3', 'u2b')])).not.toBe(messageSetKey(tree))
  })

  it('sorts pinned conversations first, then the newest', () => {
    const c = (id: string, pinned: boolean, updatedAt: number): Conversation => ({ id, agentId: 'a', title: id, pinned, createdAt: 0, updatedAt })
    expect(sortConversations([c('old', false, 1), c('pin', true, 0), c('new', false, 5)]).map((x) => x.id)).toEqual(['pin', 'new', 'old'])
  })

  it('finds what goes on from a reply before the next user message (continuations, tool steps)', () => {
    const reply = (id: string, parentId: string, status: Message['status'] = 'complete'): Message => ({ ...msg(id, parentId), role: 'assistant', status })
    // u1 answered by a (stopped, then continued by c1 and, again, c2), and by b; u2 follows c1.
    const all = [msg('u1'), reply('a', 'u1', 'interrupted'), reply('b', 'u1'), reply('c1', 'a', 'interrupted'), reply('c2', 'a'), reply('c1next', 'c1'), msg('u2', 'c1next')]
    const a = all[1]!
    expect(replyChain(all, a, {}).map((m) => m.id)).toEqual(['a', 'c2'])
    expect(replyChain(all, a, { a: 'c1' }).map((m) => m.id)).toEqual(['a', 'c1', 'c1next'])
    expect(replyChain(all, all[2]!, {}).map((m) => m.id)).toEqual(['b'])
    expect(isContinuation(all[3], a)).toBe(true)
    expect(isContinuation(all[5], all[4])).toBe(false)
    expect(isContinuation(all[6], all[5])).toBe(false)
  })
})
