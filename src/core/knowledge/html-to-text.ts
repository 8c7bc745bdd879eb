/**
 * Readable text from HTML, enough for retrieval: drops script/style/head, turns headings into
 * Markdown headings (so the chunker keeps them as context), block elements into paragraphs,
 * list items into "- " lines, and decodes entities. Not a renderer: no CSS, no layout.
 */
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', mdash: '—', ndash: '–', hellip: '…', copy: '©' }

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10)
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole
    }
    return ENTITIES[name.toLowerCase()] ?? whole
  })
}

const BLOCK = /^(p|div|section|article|main|header|footer|nav|aside|blockquote|table|tr|ul|ol|dl|dt|dd|figure|figcaption|form|br|hr|pre)$/i

export function htmlToText(html: string): string {
  let s = html.replace(/<!--[\s\S]*?-->/g, '')
  s = s.replace(/<(script|style|head|noscript|template|svg)\b[\s\S]*?<\/\1\s*>/gi, '')
  s = s.replace(/<h([1-6])\b[^>]*>([\s\S]*?)<\/h\1\s*>/gi, (_m, level: string, inner: string) => {
    const title = inner.replace(/<[^>]*>/g, '').replace(/\s+/g, ' ').trim()
    return `\n\n${'#'.repeat(Number(level))} ${title}\n\n`
  })
  s = s.replace(/<li\b[^>]*>/gi, '\n- ')
  s = s.replace(/<(td|th)\b[^>]*>/gi, ' | ')
  s = s.replace(/<\/?([a-z][a-z0-9]*)\b[^>]*>/gi, (_m, tag: string) => (BLOCK.test(tag) ? '\n\n' : ''))
  s = s.replace(/<[^>]*>/g, '')
  s = decodeEntities(s)
  return s
    .split('\n')
    .map((line) => line.replace(/[ \t\u00a0]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()
}
