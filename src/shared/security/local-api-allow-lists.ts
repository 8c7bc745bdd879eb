/**
 * What Settings and `switchboard api origins|hosts` accept for the local API's allow-lists, in
 * the form the gateway compares (lower case, no trailing slash or dot). One check for the page,
 * the CLI and the procedure, so each refuses the same entries with the same reason.
 */
export type AllowListProblem = 'empty' | 'originScheme' | 'originPath' | 'originInvalid' | 'hostScheme' | 'hostPort' | 'hostInvalid' | 'hostIp'

export type AllowListEntry = { ok: true; value: string } | { ok: false; problem: AllowListProblem }

/** A web page's origin: `http(s)://host[:port]`, as a browser sends it in `Origin`. */
export function checkOrigin(text: string): AllowListEntry {
  const trimmed = text.trim()
  if (!trimmed) return { ok: false, problem: 'empty' }
  let url: URL
  try {
    url = new URL(trimmed)
  } catch {
    return { ok: false, problem: /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? 'originInvalid' : 'originScheme' }
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, problem: 'originScheme' }
  if (url.username || url.password || url.search || url.hash || (url.pathname !== '/' && url.pathname !== '')) return { ok: false, problem: 'originPath' }
  if (!/^[a-z][a-z0-9+.-]*:\/\/[^/]+\/?$/i.test(trimmed)) return { ok: false, problem: 'originPath' }
  return { ok: true, value: url.origin.toLowerCase() }
}

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/

/**
 * An extra host name the API answers to (a name on the local network that points here). IP
 * literals and `localhost` are always answered, so they are not names to add.
 */
export function checkHostName(text: string): AllowListEntry {
  const value = text.trim().toLowerCase().replace(/\.$/, '')
  if (!value) return { ok: false, problem: 'empty' }
  if (value.includes('://')) return { ok: false, problem: 'hostScheme' }
  if (/^\[.*\]$/.test(value) || /^\d+(\.\d+){3}$/.test(value) || (value.includes(':') && value.split(':').length > 2)) return { ok: false, problem: 'hostIp' }
  if (value.includes(':')) return { ok: false, problem: 'hostPort' }
  if (value.length > 253 || !value.split('.').every((label) => LABEL.test(label))) return { ok: false, problem: 'hostInvalid' }
  if (value === 'localhost') return { ok: false, problem: 'hostIp' }
  return { ok: true, value }
}

/** The English reason for a refused entry (the CLI and the procedure; the page has its own translated texts). */
export const ALLOW_LIST_PROBLEMS: Record<AllowListProblem, string> = {
  empty: 'an entry is empty',
  originScheme: 'an origin starts with http:// or https:// (for example https://app.example.com)',
  originPath: 'an origin is only scheme://host[:port], without a path, query or user name (for example http://localhost:3000)',
  originInvalid: 'that is not a valid address',
  hostScheme: 'a host name is only the name, without http:// (for example mybox.local)',
  hostPort: 'a host name is only the name, without a port (the port is the API’s own)',
  hostInvalid: 'a host name is letters, digits, hyphens and dots (for example mybox.local)',
  hostIp: 'IP addresses and localhost are always answered; add only names'
}
