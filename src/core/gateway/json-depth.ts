/** Deeper than any real request's JSON (a tool's parameters schema is a few levels; agents send ~15). */
export const MAX_JSON_DEPTH = 100

/**
 * How deep JSON text nests, read in pieces as it arrives and without parsing it: brackets outside
 * strings. The parse and the schema checks after it walk the value recursively, so a body nested
 * 100,000 deep must be refused before them, and it can be before it is even read in full.
 */
export class JsonDepthGuard {
  private depth = 0
  private inString = false
  private escaped = false

  constructor(readonly limit = MAX_JSON_DEPTH) {}

  /** False once the text so far nests deeper than the limit. */
  push(bytes: Uint8Array): boolean {
    let i = 0
    while (i < bytes.length) {
      if (this.inString) {
        if (this.escaped) {
          this.escaped = false
          i++
          continue
        }
        // Long strings (base64 images) are skipped with native searches, not byte by byte.
        const quote = bytes.indexOf(0x22, i)
        const end = quote < 0 ? bytes.length : quote
        const slash = bytes.subarray(i, end).indexOf(0x5c)
        if (slash >= 0) {
          this.escaped = true
          i += slash + 1
          continue
        }
        if (quote < 0) return true
        this.inString = false
        i = quote + 1
        continue
      }
      const b = bytes[i]!
      if (b === 0x22) this.inString = true
      else if (b === 0x7b || b === 0x5b) {
        if (++this.depth > this.limit) return false
      } else if (b === 0x7d || b === 0x5d) this.depth--
      i++
    }
    return true
  }
}
