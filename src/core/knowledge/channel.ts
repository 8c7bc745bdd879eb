/** Events pushed from a worker, pulled by a hub stream's generator. */
export class Channel<T> {
  private items: T[] = []
  private wake?: () => void
  private closed = false

  push(item: T): void {
    this.items.push(item)
    this.wake?.()
  }

  close(): void {
    this.closed = true
    this.wake?.()
  }

  async *drain(): AsyncGenerator<T> {
    for (;;) {
      while (this.items.length) yield this.items.shift()!
      if (this.closed) return
      await new Promise<void>((resolve) => (this.wake = resolve))
      this.wake = undefined
    }
  }
}
