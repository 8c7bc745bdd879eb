/**
 * Splits markdown into top-level blocks at blank lines, never inside a fenced code block
 * or a $$ math block. While a reply streams, every block but the last is finished: its
 * text will not change, so its rendered tree can be memoised and never parsed again.
 *
 * Each block carries its start offset, which is a stable React key: appending text
 * never changes the offsets of earlier blocks.
 */
export interface Block {
  start: number
  text: string
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/

export function splitBlocks(source: string): Block[] {
  const blocks: Block[] = []
  let blockStart = 0
  let fence: string | undefined
  let inMath = false
  let pos = 0
  let blockHasContent = false
  let inList = false
  while (pos <= source.length) {
    const newline = source.indexOf('\n', pos)
    const end = newline === -1 ? source.length : newline
    const line = source.slice(pos, end)
    const next = newline === -1 ? source.length + 1 : newline + 1
    if (fence) {
      const close = FENCE.exec(line)
      if (close && close[1]![0] === fence[0] && close[1]!.length >= fence.length && line.trim() === close[1]) fence = undefined
    } else if (inMath) {
      if (line.trim().endsWith('$$')) inMath = false
    } else {
      const open = FENCE.exec(line)
      if (open) fence = open[1]
      else if (line.trim().startsWith('$$') && !(line.trim().length > 2 && line.trim().endsWith('$$'))) inMath = true
      if (line.trim() === '') {
        // A blank line ends a block, unless a list continues after it (loose lists stay one block).
        const after = source.slice(next, source.indexOf('\n', next) === -1 ? undefined : source.indexOf('\n', next))
        const listContinues = inList && /^(\s{2,}|\s*([-*+]|\d+[.)])\s)/.test(after)
        if (listContinues) {
          pos = next
          continue
        }
        if (blockHasContent) {
          blocks.push({ start: blockStart, text: source.slice(blockStart, pos) })
          blockHasContent = false
          inList = false
        }
        blockStart = next
        pos = next
        continue
      }
      if (!blockHasContent && /^\s*([-*+]|\d+[.)])\s/.test(line)) inList = true
    }
    if (!blockHasContent) {
      blockStart = pos
      blockHasContent = line.length > 0 || Boolean(fence) || inMath
    }
    pos = next
  }
  if (blockHasContent && blockStart < source.length) blocks.push({ start: blockStart, text: source.slice(blockStart) })
  return blocks
}

/**
 * The blocks of `text`, reusing `previous` when `text` only grew at the end (a streaming
 * reply): every block but the last is kept as the same object, and only the text from the
 * start of the last block is scanned again. Earlier blocks keep their identity, which is what
 * lets the renderer skip them without comparing their text.
 */
export function splitBlocksIncremental(previous: { text: string; blocks: Block[] } | undefined, text: string): Block[] {
  if (!previous || previous.blocks.length === 0 || !text.startsWith(previous.text)) return splitBlocks(text)
  const kept = previous.blocks.slice(0, -1)
  const from = previous.blocks[previous.blocks.length - 1]!.start
  const tail = splitBlocks(text.slice(from)).map((b) => ({ start: b.start + from, text: b.text }))
  return [...kept, ...tail]
}
