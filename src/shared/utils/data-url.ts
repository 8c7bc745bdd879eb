/**
 * What a URL-ish string is (product.md §5): a base64 data URL gives its data and mime type
 * (image/png when the mime part is empty), a valid absolute URL has type 'url', anything
 * else has no type.
 */
export type ParsedDataUrl =
  | { type: 'base64'; base64: string; mimeType: string }
  | { type: 'url'; base64: null; mimeType: null }
  | { type: null; base64: null; mimeType: null }

const DATA_URL = /^data:([^;,]*);base64,(.*)$/s

export function parseDataUrl(value: string): ParsedDataUrl {
  const m = DATA_URL.exec(value)
  if (m) return { type: 'base64', base64: m[2]!, mimeType: m[1] || 'image/png' }
  if (isAbsoluteUrl(value)) return { type: 'url', base64: null, mimeType: null }
  return { type: null, base64: null, mimeType: null }
}

function isAbsoluteUrl(value: string): boolean {
  try {
    return Boolean(new URL(value).protocol) && /^[a-z][a-z0-9+.-]*:/i.test(value)
  } catch {
    return false
  }
}
