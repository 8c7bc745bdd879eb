import type { Conversation } from '../../../shared/data/conversation'
import type { Message } from '../../../shared/data/message'

// Pure helpers of the chat: messages form a tree by parentId; siblings are branches.

export function sortConversations(list: Conversation[]): Conversation[] {
  return [...list].sort((a, b) => Number(b.pinned) - Number(a.pinned) || b.updatedAt - a.updatedAt)
}

/** Each message's children by its parent's id ('' for the roots), in the order given. */
function childrenByParent<M extends Message>(messages: readonly M[]): Map<string, M[]> {
  const children = new Map<string, M[]>()
  for (const m of messages) {
    const key = m.parentId ?? ''
    const list = children.get(key)
    if (list) list.push(m)
    else children.set(key, [m])
  }
  return children
}

/**
 * The messages on screen: from the root, at each step the selected child (or the one a competition
 * chose, or the newest).
 * Roots are the messages without a parent; branches are siblings under one parent.
 */
export function visiblePath<M extends Message>(messages: readonly M[], branch: Record<string, string>): M[] {
  const children = childrenByParent(messages)
  const path: M[] = []
  let key = ''
  let previous: M | undefined
  for (let guard = 0; guard < messages.length; guard++) {
    const options = children.get(key)
    if (!options || options.length === 0) break
    // After a Chat Competition, the reply the user chose to continue with.
    const decided = previous?.meta?.competition?.chosenId
    const chosen = options.find((m) => m.id === branch[key]) ?? (decided ? options.find((m) => m.id === decided) : undefined) ?? options[options.length - 1]!
    previous = chosen
    path.push(chosen)
    key = chosen.id
  }
  return path
}

/** `reply` answers the interrupted `partial` as its continuation (chat.continue); defined once, in shared. */
export { isContinuation } from '../../../shared/chat/continuation'

/**
 * A reply and the assistant messages that go on from it before the next user message: its
 * continuations (chat.continue) and tool steps, along the shown branch (or the newest).
 */
export function replyChain<M extends Message>(all: readonly M[], reply: M, branch: Record<string, string>): M[] {
  const byParent = childrenByParent(all)
  const chain = [reply]
  for (let at = reply; chain.length <= all.length; ) {
    const children = byParent.get(at.id) ?? []
    const next = children.find((m) => m.id === branch[at.id]) ?? children[children.length - 1]
    if (!next || next.role !== 'assistant') break
    chain.push(next)
    at = next
  }
  return chain
}

/** [index, count] of every message among its siblings (one pass), for the branch switcher. */
export function branchPositions(messages: readonly Message[]): Map<string, [number, number]> {
  const siblings = new Map<string, string[]>()
  for (const m of messages) {
    const key = m.parentId ?? ''
    const list = siblings.get(key)
    if (list) list.push(m.id)
    else siblings.set(key, [m.id])
  }
  const out = new Map<string, [number, number]>()
  for (const ids of siblings.values()) ids.forEach((id, i) => out.set(id, [i, ids.length]))
  return out
}

/** Changes when messages are added or removed (or reloaded), not while one of them streams. */
export const messageSetKey = (messages: readonly Message[]): string =>
  `${messages.length}:${messages[0]?.id ?? ''}:${messages[messages.length - 1]?.id ?? ''}`
