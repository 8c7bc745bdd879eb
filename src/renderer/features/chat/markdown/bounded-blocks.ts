/**
 * Limits on what one markdown block may cost, so no model output can crash the page or make
 * streaming quadratic.
 *
 * Depth: the markdown pipeline (parser, tree transforms, React) recurses per nesting level;
 * 3,000 nested `>` overflow the stack. A block nested deeper than MAX_NESTING is shown as
 * plain text instead of being parsed at all.
 *
 * Length: while a reply streams, its last block is parsed again on every update. A block
 * longer than SEGMENT_CHARS is cut into segments at safe places; finished segments keep their
 * identity (and are never parsed again), so each update parses at most one segment.
 */
export const MAX_NESTING = 32
export const SEGMENT_CHARS = 1_000

// Container markers at the start of a line: block quotes, list bullets and numbers, indentation.
const PREFIX = /^(?:[ \t]|>|[-*+](?=[ \t]|$)|\d{1,9}[.)](?=[ \t]|$))*/

/** How deeply the line's content is nested in quotes and lists (a cheap upper estimate). */
export function lineDepth(line: string): number {
  const prefix = PREFIX.exec(line)![0]
  if (prefix.length === 0) return 0
  let depth = 0
  let spaces = 0
  let afterMarker = false
  for (const c of prefix) {
    if (c === ' ' || c === '\t') {
      // The one space after a marker belongs to it; more is indentation.
      if (afterMarker) afterMarker = false
      else spaces += c === '\t' ? 4 : 1
    } else if (c === '>' || c === '-' || c === '*' || c === '+' || c === '.' || c === ')') {
      depth++ // digits count once, by their '.' or ')'
      afterMarker = true
    }
  }
  return depth + Math.floor(spaces / 2)
}

/** Is any line of the block nested deeper than the limit? Stops at the first that is. */
export function tooDeep(text: string, limit = MAX_NESTING): boolean {
  let start = 0
  while (start <= text.length) {
    const end = text.indexOf('\n', start)
    const line = text.slice(start, end === -1 ? undefined : Math.min(end, start + 4 * limit + 8))
    if (lineDepth(line) > limit) return true
    if (end === -1) break
    start = end + 1
  }
  return false
}

export interface Segments {
  text: string
  /** Offsets where segments start (the first is 0). */
  starts: number[]
}

// A block holding a fence or a $$ math block is never cut: its inside is not markdown.
const HAS_FENCE = /^ {0,3}(`{3,}|~{3,}|\$\$)/m

/** Where, after `from` and at or before `limit`, a segment may end; -1 if nowhere safe. */
function cutPoint(text: string, from: number, limit: number): number {
  // Best: the start of an unindented line (a new list item or paragraph line, no continuation).
  for (let i = limit - 1; i > from; i--) {
    if (text.charCodeAt(i - 1) === 10 && text[i] !== ' ' && text[i] !== '\t' && text[i] !== '\n') return i
  }
  // Inside one long line, only if it is plain paragraph text (not in a list or quote).
  const lineStart = text.lastIndexOf('\n', limit - 1) + 1
  if (lineDepth(text.slice(lineStart, lineStart + 4 * MAX_NESTING + 8)) > 0) return -1
  const low = Math.max(from + 1, lineStart + 1, limit - (limit - from) / 2)
  // After whitespace and before a letter or digit, so the next segment does not start with syntax.
  for (let i = limit - 1; i >= low; i--) {
    if ((text[i - 1] === ' ' || text[i - 1] === '\t') && /[\p{L}\p{N}]/u.test(text[i]!)) return i
  }
  // Anywhere, but not between the halves of a surrogate pair.
  const code = text.charCodeAt(limit - 1)
  return code >= 0xd800 && code <= 0xdbff ? limit - 1 : limit
}

/**
 * Emphasis and link syntax is what the parser spends its time on (1,000 characters of `*a`
 * cost as much as 4,000 of prose), so a segment also ends after this many of those characters.
 */
export const SEGMENT_DELIMITERS = 128
const DELIMITER = new Set(['*', '_', '~', '[', ']', '`', '$'])

/** Where the segment starting at `from` must end at the latest. */
function windowEnd(text: string, from: number, size: number): number {
  const end = Math.min(text.length, from + size)
  let delimiters = 0
  for (let i = from; i < end; i++) {
    if (DELIMITER.has(text[i]!) && ++delimiters >= SEGMENT_DELIMITERS) return Math.max(i + 1, from + 64)
  }
  // The whole window is there only if the text goes on past it.
  return end < from + size ? text.length : end
}

/**
 * Cuts a block into segments of at most about `size` characters. `previous` is the result
 * for an earlier, shorter version of the same block (a stream): every segment but its last
 * is kept, so the work per update is proportional to the new text.
 */
export function segmentBlock(text: string, previous?: Segments, size = SEGMENT_CHARS): Segments {
  if (text.length <= size || HAS_FENCE.test(text)) return { text, starts: [0] }
  const starts = previous && previous.starts.length > 1 && text.startsWith(previous.text) ? previous.starts.slice(0, -1) : [0]
  let from = starts[starts.length - 1]!
  for (;;) {
    const limit = windowEnd(text, from, size)
    if (limit >= text.length) break
    const cut = cutPoint(text, from, limit)
    if (cut <= from) break // nowhere safe: the rest stays one segment
    starts.push(cut)
    from = cut
  }
  return { text, starts }
}

// A run of more than 32 `*`, `_` or `~` next to text. The parser's emphasis matching is
// quadratic in such runs (12,000 stars took 12 s) and nests them thousands deep; no real
// formatting needs them, so they are escaped and shown as the characters they are. A line
// of nothing but the run (a thematic break) is left alone.
const LONG_DELIMITER_RUN = /(?<=[^\s*_~])([*_~])\1{32,}|([*_~])\2{32,}(?=[^\s*_~])/g

export function escapeLongDelimiterRuns(text: string): string {
  return text.replace(LONG_DELIMITER_RUN, (run) => run.replace(/[*_~]/g, '\\$&'))
}
