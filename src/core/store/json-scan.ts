/**
 * Just enough of a JSON scanner to take an export file apart without one JSON.parse of the
 * whole text (which blocks the event loop for a second on a 100 MB file): it finds where a
 * value ends, so each array element can be parsed on its own, a few at a time.
 */

const WS = new Set([0x20, 0x0a, 0x0d, 0x09])

export function skipWs(text: string, pos: number): number {
  while (pos < text.length && WS.has(text.charCodeAt(pos))) pos++
  return pos
}

/** Index just past the string starting at `pos` (a '"'). */
function stringEnd(text: string, pos: number): number {
  let i = pos + 1
  for (;;) {
    const quote = text.indexOf('"', i)
    if (quote < 0) throw new SyntaxError('unterminated string')
    let backslashes = 0
    for (let j = quote - 1; j > pos && text.charCodeAt(j) === 0x5c; j--) backslashes++
    if (backslashes % 2 === 0) return quote + 1
    i = quote + 1
  }
}

/** Index just past the JSON value starting at `pos` (after whitespace). Checks only nesting; JSON.parse checks the rest. */
export function valueEnd(text: string, pos: number): number {
  pos = skipWs(text, pos)
  const first = text.charCodeAt(pos)
  if (first === 0x22) return stringEnd(text, pos)
  if (first !== 0x7b && first !== 0x5b) {
    let i = pos
    while (i < text.length && !WS.has(text.charCodeAt(i)) && !',]}'.includes(text[i]!)) i++
    if (i === pos) throw new SyntaxError(`unexpected ${pos < text.length ? `"${text[pos]}"` : 'end of file'}`)
    return i
  }
  let depth = 0
  let i = pos
  while (i < text.length) {
    const c = text.charCodeAt(i)
    if (c === 0x22) {
      i = stringEnd(text, i)
      continue
    }
    if (c === 0x7b || c === 0x5b) depth++
    else if (c === 0x7d || c === 0x5d) {
      depth--
      if (depth === 0) return i + 1
    }
    i++
  }
  throw new SyntaxError('unexpected end of file')
}

export function expect(text: string, pos: number, char: string): number {
  pos = skipWs(text, pos)
  if (text[pos] !== char) throw new SyntaxError(`expected "${char}" at ${pos}`)
  return pos + 1
}

/**
 * Walks the members of the object starting at `pos`, calling `member(key, valueStart)`; the
 * callback returns where the value ends (it may walk it itself). Returns the index past '}'.
 */
export async function walkObject(text: string, pos: number, member: (key: string, valueStart: number) => Promise<number> | number): Promise<number> {
  pos = expect(text, pos, '{')
  pos = skipWs(text, pos)
  if (text[pos] === '}') return pos + 1
  for (;;) {
    pos = skipWs(text, pos)
    const keyEnd = valueEnd(text, pos)
    const key = JSON.parse(text.slice(pos, keyEnd)) as unknown
    if (typeof key !== 'string') throw new SyntaxError(`expected a key at ${pos}`)
    pos = expect(text, keyEnd, ':')
    pos = await member(key, skipWs(text, pos))
    pos = skipWs(text, pos)
    if (text[pos] === ',') {
      pos++
      continue
    }
    return expect(text, pos, '}')
  }
}

/** Walks the elements of the array starting at `pos`, calling `element(start, end)`. Returns the index past ']'. */
export async function walkArray(text: string, pos: number, element: (start: number, end: number) => Promise<void> | void): Promise<number> {
  pos = expect(text, pos, '[')
  pos = skipWs(text, pos)
  if (text[pos] === ']') return pos + 1
  for (;;) {
    const start = skipWs(text, pos)
    const end = valueEnd(text, start)
    await element(start, end)
    pos = skipWs(text, end)
    if (text[pos] === ',') {
      pos++
      continue
    }
    return expect(text, pos, ']')
  }
}
