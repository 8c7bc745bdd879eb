/**
 * "Show me what I just sent": the chat store asks, the message list answers by scrolling to
 * the bottom and following the reply again, wherever the reader had scrolled to.
 * A signal rather than store state, so asking re-renders nothing.
 */
const listeners = new Set<() => void>()

export const followLatest = {
  request(): void {
    for (const listener of listeners) listener()
  },
  subscribe(listener: () => void): () => void {
    listeners.add(listener)
    return () => void listeners.delete(listener)
  }
}
