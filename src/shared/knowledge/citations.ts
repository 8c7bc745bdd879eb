/**
 * Knowledge citations in a reply: the model is told to cite the numbered sources as [1], [2] …
 * Those markers become links to the source (opened in the app, never a navigation), and the
 * Sources list shows the ones the reply cites first, the rest behind "n more retrieved".
 */

const HREF = /^#kb-source-(\d{1,3})$/

/** The in-page address of source n: a fragment, so following it can never leave the app. */
export const kbSourceHref = (n: number): string => `#kb-source-${n}`

/** The source number of a link made by kbSourceHref, else undefined. */
export function kbSourceOf(href: unknown): number | undefined {
  const m = typeof href === 'string' ? HREF.exec(href) : null
  return m ? Number(m[1]) : undefined
}

/** [1], [1, 2], [1,2,3] (not a link's text, a footnote, or a link already). */
const MARKERS = /(?<![\]\\])\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\](?![(:[])/g

/** The numbers a reply cites, among those it may cite. */
export function citedNumbers(text: string, known: ReadonlySet<number>): Set<number> {
  const out = new Set<number>()
  for (const m of text.matchAll(MARKERS)) for (const n of m[1]!.split(',').map((d) => Number(d.trim()))) if (known.has(n)) out.add(n)
  return out
}

/** Each cited number of a source that exists → a link to it; other markers stay text. */
export function linkKnowledgeMarkers(text: string, known: ReadonlySet<number>): string {
  if (known.size === 0 || !text.includes('[')) return text
  return text.replace(MARKERS, (marker, list: string) => {
    const numbers = list.split(',').map((d) => Number(d.trim()))
    if (!numbers.some((n) => known.has(n))) return marker
    return numbers.map((n) => (known.has(n) ? `[\\[${n}\\]](${kbSourceHref(n)})` : `\\[${n}\\]`)).join('')
  })
}

/** The sources split into those the reply cites and the rest, each in number order. */
export function splitCited<T extends { n: number }>(sources: readonly T[], text: string): { cited: T[]; more: T[] } {
  const cited = citedNumbers(text, new Set(sources.map((s) => s.n)))
  return { cited: sources.filter((s) => cited.has(s.n)), more: sources.filter((s) => !cited.has(s.n)) }
}
