import type { GroundingCitation } from '../stream/events'
import { isSafeExternalUrl, parseStrictUrl } from '../security/url-policy'

/**
 * Citations of a reply: the numbered source list under it and the inline markers
 * `[n]` in its text. Links go through the one URL policy (src/shared/security): a source whose
 * address the policy refuses is listed as text, never as a link.
 */

export interface SourceItem {
  n: number
  title: string
  /** The address to link to; absent when the policy refuses it. */
  href?: string
  host?: string
}

export function sourceList(citations: readonly GroundingCitation[] | undefined): SourceItem[] {
  const seen = new Set<string>()
  const out: SourceItem[] = []
  for (const c of citations ?? []) {
    if (seen.has(c.url)) continue
    seen.add(c.url)
    const safe = isSafeExternalUrl(c.url)
    const url = safe ? parseStrictUrl(c.url) : undefined
    out.push({ n: out.length + 1, title: c.title?.trim() || c.url, ...(url ? { href: url.href, host: url.hostname } : {}) })
  }
  return out
}

/**
 * `[n]` markers (not already links) → markdown links to source n, where it has a safe address.
 * The address is written in angle brackets so parentheses in it cannot end the link early.
 */
export function linkCitationMarkers(text: string, sources: readonly SourceItem[]): string {
  if (sources.length === 0 || !text.includes('[')) return text
  return text.replace(/(?<![\]\\])\[(\d{1,3})\](?![(:[])/g, (marker, digits: string) => {
    const source = sources[Number(digits) - 1]
    if (!source?.href || /[<>\s]/.test(source.href)) return marker
    return `[\\[${digits}\\]](<${source.href}>)`
  })
}
