const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

/**
 * A random id of `length` characters from digits and upper- and lower-case letters
 * (product.md §9: 8 by default). Uses the Web Crypto generator, present in Node and browsers;
 * rejection sampling keeps every character equally likely.
 */
export function randomId(length = 8): string {
  if (!Number.isInteger(length) || length < 1) throw new RangeError(`randomId length must be a positive whole number, got ${length}`)
  let out = ''
  const buffer = new Uint8Array(length * 2)
  while (out.length < length) {
    globalThis.crypto.getRandomValues(buffer)
    for (const byte of buffer) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62]
    }
  }
  return out
}
