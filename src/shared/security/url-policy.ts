/**
 * URL checks for the Electron shell (navigation guard, window-open handler, openExternal)
 * and for every link the renderer draws (markdown links, citations).
 * Everything goes through the WHATWG URL parser; nothing is decided by string prefixes.
 */

// C0 controls, DEL, and the invisible characters that can disguise a URL.
// eslint-disable-next-line no-control-regex
const CONTROL_OR_INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/

export function parseStrictUrl(raw: unknown): URL | undefined {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > 8192) return undefined
  if (CONTROL_OR_INVISIBLE.test(raw)) return undefined
  // UNC paths and backslash tricks (\\host\share, https:\\evil) are never links we open.
  if (raw.includes('\\')) return undefined
  if (raw.trim() !== raw) return undefined
  // The URL parser lower-cases schemes; we refuse anything that was not written lower-case
  // so "HTTPS:" / "JavaScript:" style tricks never reach the OS.
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(raw)?.[1]
  if (!scheme || scheme !== scheme.toLowerCase()) return undefined
  try {
    return new URL(raw)
  } catch {
    return undefined
  }
}

/**
 * May this URL be handed to the operating system (shell.openExternal)?
 * Only https: with a real host and no embedded credentials, and mailto:.
 */
export function isSafeExternalUrl(raw: unknown): boolean {
  const url = parseStrictUrl(raw)
  if (!url) return false
  if (url.protocol === 'mailto:') return isSafeMailto(url)
  if (url.protocol !== 'https:') return false
  if (url.username || url.password) return false
  if (!url.hostname || url.hostname.length > 253) return false
  return true
}

/**
 * mailto: may fill in a message, nothing more. Mail clients honour other fields
 * (`attach=`, `attachment=`, `file=`…) that send local files without the user noticing.
 */
const MAILTO_FIELDS = new Set(['to', 'subject', 'body', 'cc', 'bcc'])

function isSafeMailto(url: URL): boolean {
  if (url.username || url.password || url.pathname.length === 0) return false
  for (const key of url.searchParams.keys()) if (!MAILTO_FIELDS.has(key.toLowerCase())) return false
  return true
}

/**
 * The one policy for links the renderer makes (markdown links, citation lists): http(s)
 * with a real host and no credentials, or a plain mailto:. Anything else (javascript:,
 * data:, file:, relative paths, which would point back into the app) is not a link at
 * all: the caller shows its text without an anchor. Returns the normalised address.
 */
export function safeLinkHref(raw: unknown): string | undefined {
  const url = parseStrictUrl(raw)
  if (!url) return undefined
  if (url.protocol === 'mailto:') return isSafeMailto(url) ? url.href : undefined
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined
  if (url.username || url.password || !url.hostname || url.hostname.length > 253) return undefined
  return url.href
}

// Bidi controls and zero-width characters: invisible, yet they can make a link's text read
// differently from where it goes.
const DECEPTIVE_TEXT = /[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/

/**
 * Should the user see a link's real target before it opens? When its text hides characters
 * that reorder or disguise it, or its host is an internationalised name (which may imitate
 * another). The host is given as the URL parser spells it: punycode for IDN.
 */
export function linkTargetCheck(text: string, href: string): { host: string; href: string } | undefined {
  const url = parseStrictUrl(href)
  if (!url) return undefined
  const idn = url.hostname.split('.').some((label) => label.startsWith('xn--'))
  if (!DECEPTIVE_TEXT.test(text) && !idn) return undefined
  return { host: url.host || url.href, href: url.href }
}

/** The origins the app's own windows may show. */
export interface AppOrigins {
  /** e.g. `app://switchboard` in production. */
  appOrigin: string
  /** The Vite dev server in `npm start`, if any. */
  devOrigin?: string
}

/** The navigation guard: a window may only navigate within the app itself. */
export function isAllowedNavigation(raw: unknown, origins: AppOrigins): boolean {
  const url = parseStrictUrl(raw)
  if (!url) return false
  if (url.username || url.password) return false
  const allowed = [origins.appOrigin, origins.devOrigin].filter((o): o is string => Boolean(o))
  return allowed.some((origin) => sameOrigin(url, origin))
}

function sameOrigin(url: URL, origin: string): boolean {
  const expected = parseStrictUrl(origin)
  if (!expected) return false
  // Custom schemes have an opaque origin ("null"), so compare the parts ourselves.
  return url.protocol === expected.protocol && url.host === expected.host
}

/** Decision for window.open / target=_blank: never a new Electron window; safe links go to the OS browser. */
export function decideWindowOpen(raw: unknown): { action: 'deny'; openExternally: boolean } {
  return { action: 'deny', openExternally: isSafeExternalUrl(raw) }
}
