import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { isIP } from 'node:net'
import { GatewayError } from './gateway-error'
import type { LocalApiConfig } from '../../shared/data/app-settings'

/** A key as kept in the settings row (its definition: shared/data/app-settings.ts): its sha256, never the key. */
export type StoredApiKey = LocalApiConfig['keys'][number]

const KEY_PREFIX = 'sb-'

/** A new key: 32 random bytes, shown once; only its hash is stored. */
export function newApiKey(): { secret: string; hash: string; prefix: string } {
  const secret = `${KEY_PREFIX}${randomBytes(32).toString('base64url')}`
  return { secret, hash: hashKey(secret), prefix: secret.slice(0, KEY_PREFIX.length + 6) }
}

export const hashKey = (secret: string): string => createHash('sha256').update(secret, 'utf8').digest('hex')

/** The key a request presents: `Authorization: Bearer …` (OpenAI) or `x-api-key` (Anthropic). */
export function presentedKey(headers: Record<string, string | string[] | undefined>): string | undefined {
  const auth = headers['authorization']
  if (typeof auth === 'string') {
    const match = /^Bearer\s+(.+)$/i.exec(auth.trim())
    if (match) return match[1]!.trim()
  }
  const x = headers['x-api-key']
  return typeof x === 'string' && x.trim() ? x.trim() : undefined
}

/**
 * The stored key matching `secret`. Every stored hash is compared in constant time (the loop does
 * not stop at a match), so the answer's timing tells nothing about which bytes were right.
 */
export function findKey(keys: readonly StoredApiKey[], secret: string | undefined): StoredApiKey {
  if (!secret) throw new GatewayError('authentication', 'No API key was given: send it as "Authorization: Bearer <key>" or "x-api-key". Create one in Settings → Local API.')
  const presented = Buffer.from(hashKey(secret), 'hex')
  let found: StoredApiKey | undefined
  for (const key of keys) {
    const stored = Buffer.from(key.hash, 'hex')
    if (stored.length === presented.length && timingSafeEqual(stored, presented)) found = key
  }
  if (!found) throw new GatewayError('authentication', 'The API key is not valid. Check it, or create one in Settings → Local API.')
  if (found.revokedAt !== undefined) throw new GatewayError('authentication', `The API key "${found.name}" was revoked. Create a new one in Settings → Local API.`)
  return found
}

/** Whether a key may call `modelId` (`provider/model` or an alias): exact ids, `provider/*` or `*`. */
export function modelAllowed(key: StoredApiKey, ids: readonly string[]): boolean {
  if (!key.allowedModels) return true
  return key.allowedModels.some((pattern) => ids.some((id) => (pattern.endsWith('*') ? id.startsWith(pattern.slice(0, -1)) : id === pattern)))
}

/** Requests per key in the last minute (a sliding window), in memory: a restart forgets it. */
export class RateLimiter {
  private readonly seen = new Map<string, number[]>()

  constructor(private readonly now: () => number = Date.now) {}

  /** Counts one request, or throws 429 with how long to wait. */
  take(key: StoredApiKey): void {
    const limit = key.rateLimitPerMinute
    if (!limit) return
    const now = this.now()
    const times = (this.seen.get(key.id) ?? []).filter((t) => t > now - 60_000)
    if (times.length >= limit) {
      const wait = Math.max(1, Math.ceil((times[0]! + 60_000 - now) / 1000))
      this.seen.set(key.id, times)
      throw new GatewayError('rate_limit', `The key "${key.name}" allows ${limit} requests per minute; retry in ${wait} s.`, undefined, 429, wait)
    }
    times.push(now)
    this.seen.set(key.id, times)
  }
}

/** The host name of a Host header, without the port; IPv6 literals without brackets, lower-case. */
export function hostName(header: string | undefined): string | undefined {
  if (!header) return undefined
  const value = header.trim().toLowerCase()
  if (value.startsWith('[')) {
    const end = value.indexOf(']')
    return end > 0 ? value.slice(1, end) : undefined
  }
  const colon = value.lastIndexOf(':')
  return (colon >= 0 && value.indexOf(':') === colon ? value.slice(0, colon) : value).replace(/\.$/, '')
}

/**
 * DNS rebinding: a page on some site may point its own name at 127.0.0.1 and call us. Only
 * IP literals, localhost, the bound address and names the user listed are answered.
 */
export function hostAllowed(header: string | undefined, bound: string, allowed: readonly string[]): boolean {
  const name = hostName(header)
  if (!name) return false
  if (isIP(name) !== 0) return true
  if (name === 'localhost' || name === bound.toLowerCase()) return true
  return allowed.some((a) => a.toLowerCase().replace(/\.$/, '') === name)
}

/**
 * A browser sends `Origin` on cross-site requests. Without a listed origin nothing a web page
 * sends is answered (not even a "simple" POST that skips the preflight); programs send no Origin.
 */
export function originAllowed(origin: string | undefined, allowed: readonly string[]): boolean {
  if (origin === undefined) return true
  const normal = origin.replace(/\/+$/, '').toLowerCase()
  return allowed.some((a) => a.replace(/\/+$/, '').toLowerCase() === normal)
}

/** Loopback addresses a server may bind without a warning. */
export const isLoopbackHost = (host: string): boolean => host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host)
