/**
 * Parses the `data` of one stream's chat.completion.chunk messages. Nearly every chunk of a
 * reply is the previous one with another `delta.content`: the same id, created, model,
 * fingerprint, index and finish_reason, byte for byte. Once a chunk of that kind has been
 * parsed, its text around the content's string literal is kept; a later chunk with exactly
 * that text around one string literal is the same object with another content, so it is built
 * from the kept one (three object copies) instead of parsed again. JSON.parse of every chunk
 * (its strings allocated afresh) was most of the cost of a long reply on the runtime's side.
 *
 * The result is always what JSON.parse would return: fresh objects, equal values. Anything
 * else (another shape, escapes that do not parse, a changed id) goes through JSON.parse,
 * errors included.
 */
export function chatChunkParser(): (data: string) => unknown {
  let shape: Shape | undefined
  // Shapes learned since the last chunk that fitted one. A provider whose chunks differ in more
  // than the content (a random padding field) never fits: after a few tries, stop learning.
  let unused = 0
  return (data) => {
    if (shape !== undefined) {
      const content = shape.content(data)
      if (content !== undefined) {
        unused = 0
        return shape.make(content)
      }
    }
    const value: unknown = JSON.parse(data)
    if (unused < MAX_UNUSED_SHAPES) {
      const learned = learn(data, value)
      if (learned) {
        shape = learned
        unused++
      }
    }
    return value
  }
}

const MAX_UNUSED_SHAPES = 3

type Json = Record<string, unknown>

interface Shape {
  /** The content of a chunk of this shape, or undefined when it is not one. */
  content(data: string): string | undefined
  make(content: string): unknown
}

const CONTENT_KEY = '"content":'
const SENTINEL = 'sb\u0001shape'

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)
const flat = (o: Json, except: string): boolean => {
  for (const key in o) {
    if (key === except) continue
    const v = o[key]
    if (typeof v === 'object' && v !== null) return false
  }
  return true
}

/** The chunk's shape, when it is a one-choice text delta whose other values are all plain (so copies share nothing mutable). */
function learn(data: string, value: unknown): Shape | undefined {
  if (!isObject(value) || !Array.isArray(value['choices']) || value['choices'].length !== 1) return undefined
  const choice = value['choices'][0]
  if (!isObject(choice) || !isObject(choice['delta'])) return undefined
  const delta = choice['delta']
  if (typeof delta['content'] !== 'string' || !flat(value, 'choices') || !flat(choice, 'delta') || !flat(delta, 'content')) return undefined
  // The literal of delta.content: after the last `"content":` (providers write no spaces there).
  const key = data.lastIndexOf(CONTENT_KEY)
  if (key === -1) return undefined
  const start = key + CONTENT_KEY.length
  const end = literalEnd(data, start)
  if (end === -1) return undefined
  const prefix = data.slice(0, start)
  const suffix = data.slice(end)
  // The literal there is delta.content, and nothing else: the same text around another string gives that string.
  let probe: unknown
  try {
    probe = JSON.parse(`${prefix}${JSON.stringify(SENTINEL)}${suffix}`)
  } catch {
    return undefined
  }
  const probeChoice = isObject(probe) && Array.isArray(probe['choices']) ? probe['choices'][0] : undefined
  if (!isObject(probeChoice) || !isObject(probeChoice['delta']) || probeChoice['delta']['content'] !== SENTINEL) return undefined
  const around = prefix.length + suffix.length
  return {
    content(text) {
      // Compared as slices: startsWith walks a long prefix character by character, several times slower.
      if (text.length < around + 2 || text.slice(0, prefix.length) !== prefix || text.slice(text.length - suffix.length) !== suffix) return undefined
      return stringLiteral(text, prefix.length, text.length - suffix.length)
    },
    make(content) {
      // Spread keeps the keys' order, as JSON.parse would give them.
      return { ...value, choices: [{ ...choice, delta: { ...delta, content } }] }
    }
  }
}

/** The index after the string literal starting at `start` (a `"`), or -1. */
function literalEnd(text: string, start: number): number {
  if (text.charCodeAt(start) !== 34) return -1
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 92) i++
    else if (c === 34) return i + 1
  }
  return -1
}

/**
 * The value of text[from, to) when it is exactly one JSON string literal; undefined otherwise
 * (the caller then parses the whole chunk, which reports a malformed one as JSON.parse does).
 */
function stringLiteral(text: string, from: number, to: number): string | undefined {
  if (text.charCodeAt(from) !== 34 || text.charCodeAt(to - 1) !== 34) return undefined
  for (let i = from + 1; i < to - 1; i++) {
    const c = text.charCodeAt(i)
    // A quote inside, a raw control character: not one valid literal. An escape: JSON.parse decodes it.
    if (c === 34 || c < 32) return undefined
    if (c === 92) return escaped(text.slice(from, to))
  }
  return text.slice(from + 1, to - 1)
}

function escaped(literal: string): string | undefined {
  try {
    const value: unknown = JSON.parse(literal)
    return typeof value === 'string' ? value : undefined
  } catch {
    return undefined
  }
}
