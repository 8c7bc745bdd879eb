/**
 * Keeps secrets and endpoints out of anything a user, a log or the database sees
 * (providers.md §8 "Endpoints shown in errors are masked"; DESIGN §4).
 */

/** https://api.example.com/v1/chat → https://api.ex****.com/v1/chat: the host is masked, the path kept. */
export function maskEndpoint(url: string): string {
  try {
    const parsed = new URL(url)
    const host = parsed.hostname
    const isLocal = host === 'localhost' || host === '127.0.0.1' || host === '::1' || host === '[::1]'
    const masked = isLocal ? host : maskMiddle(host)
    return `${parsed.protocol}//${masked}${parsed.port ? `:${parsed.port}` : ''}${parsed.pathname === '/' ? '' : parsed.pathname}`
  } catch {
    return maskMiddle(url)
  }
}

function maskMiddle(text: string): string {
  if (text.length <= 6) return '*'.repeat(text.length)
  const keep = Math.max(2, Math.floor(text.length / 4))
  return `${text.slice(0, keep)}****${text.slice(-keep)}`
}

const URL_PATTERN = /\bhttps?:\/\/[^\s"'<>)]+/g
// Bearer tokens and the usual key shapes (sk-…, AIza…, hf_…, gh*_…, AKIA…); a match is replaced whole.
const KEY_PATTERNS = [
  /\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/g,
  /\b(?:sk|pk|rk)-[A-Za-z0-9_-]{8,}/g,
  /\bAIza[0-9A-Za-z_-]{20,}/g,
  /\bhf_[A-Za-z0-9]{10,}/g,
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g,
  /\bAKIA[0-9A-Z]{12,}/g
]

/**
 * Removes every secret we know of (exact values first, then known key shapes) and masks
 * every URL host. Apply to any text that leaves the runtime.
 */
export function redactText(text: string, secrets: readonly (string | undefined)[] = []): string {
  let out = text
  for (const secret of secrets) {
    if (secret && secret.length >= 4) out = out.split(secret).join('***')
  }
  for (const pattern of KEY_PATTERNS) out = out.replace(pattern, '***')
  return out.replace(URL_PATTERN, (url) => maskEndpoint(url))
}

/** Deep-redacts plain data (error bodies): strings redacted, keys named like secrets dropped. */
export function redactValue(value: unknown, secrets: readonly (string | undefined)[] = [], depth = 0): unknown {
  if (depth > 6) return undefined
  if (typeof value === 'string') return redactText(value, secrets)
  if (Array.isArray(value)) return value.slice(0, 50).map((v) => redactValue(v, secrets, depth + 1))
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) {
      if (/^(api[-_]?key|authorization|x-api-key|api-key|secret|token|password|access[-_]?key.*|secret[-_]?access[-_]?key)$/i.test(k)) continue
      out[k] = redactValue(v, secrets, depth + 1)
    }
    return out
  }
  return value
}
