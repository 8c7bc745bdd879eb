export interface TextPiece {
  type: 'text' | 'reasoning'
  data: string
}

const OPEN = '<think>'
const CLOSE = '</think>'

/**
 * Splits streamed text into reasoning (inside `<think>…</think>`) and answer text. Tags may
 * be split across chunks ("<thi" + "nk>"), so a trailing fragment that could start a tag is
 * held back until the next push or `flush`.
 */
export class ThinkTagSplitter {
  private inThink = false
  private pending = ''

  get thinking(): boolean {
    return this.inThink
  }

  push(chunk: string): TextPiece[] {
    // Fast path: no tag can start here and nothing is held back.
    if (this.pending === '' && chunk.indexOf('<') === -1) return chunk ? [{ type: this.inThink ? 'reasoning' : 'text', data: chunk }] : []
    let text = this.pending + chunk
    this.pending = ''
    const out: TextPiece[] = []
    for (;;) {
      const tag = this.inThink ? CLOSE : OPEN
      const at = text.indexOf(tag)
      if (at === -1) {
        const hold = partialTagSuffix(text, tag)
        const emit = text.slice(0, text.length - hold)
        this.pending = text.slice(text.length - hold)
        if (emit) out.push({ type: this.inThink ? 'reasoning' : 'text', data: emit })
        return out
      }
      if (at > 0) out.push({ type: this.inThink ? 'reasoning' : 'text', data: text.slice(0, at) })
      this.inThink = !this.inThink
      text = text.slice(at + tag.length)
      if (!text) return out
    }
  }

  /** Whatever was held back, as the current kind (a stream ending on "<thi" keeps those letters). */
  flush(): TextPiece[] {
    const rest = this.pending
    this.pending = ''
    return rest ? [{ type: this.inThink ? 'reasoning' : 'text', data: rest }] : []
  }
}

/** Length of the longest suffix of `text` that is a proper prefix of `tag`. */
function partialTagSuffix(text: string, tag: string): number {
  const max = Math.min(tag.length - 1, text.length)
  for (let len = max; len > 0; len--) {
    if (text.endsWith(tag.slice(0, len))) return len
  }
  return 0
}
