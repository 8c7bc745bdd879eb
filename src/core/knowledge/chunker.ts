import type { Chunk } from '../../shared/knowledge/types'
/**
 * Structure-aware chunking. A chunk is always a slice of the extracted text (so its character
 * range is exact), never crosses a heading, keeps a fenced code block whole when it fits, and
 * otherwise breaks at paragraphs, then lines, then sentences, then spaces. Consecutive chunks
 * of one section overlap by about `overlap` characters.
 */

// The chunk type is shared with the repository that stores it (one definition).
export type { Chunk }

export interface ChunkOptions {
  size: number
  overlap: number
  /** Markdown headings count only in Markdown-like text; `#` starts a comment in code. */
  markdown?: boolean
}

interface Block {
  start: number
  end: number
  /** Index of the section (heading) it belongs to. */
  section: number
  code: boolean
}

const PAGE_MARK = /^--- page (\d+) ---$/

/** Splits text into paragraphs, fenced code blocks and headings (each heading opens a section). */
function blocks(text: string, markdown: boolean, headings: string[], pages: { at: number; page: number }[]): Block[] {
  const out: Block[] = []
  const path: { level: number; title: string }[] = []
  let section = 0
  headings.push('')
  let para: Block | null = null
  let fence: { marker: string; block: Block } | null = null
  let pos = 0
  const close = () => {
    if (para) out.push(para)
    para = null
  }
  while (pos <= text.length) {
    const nl = text.indexOf('\n', pos)
    const end = nl < 0 ? text.length : nl
    const line = text.slice(pos, end)
    const trimmed = line.trim()
    if (fence) {
      fence.block.end = end
      if (trimmed.startsWith(fence.marker)) {
        out.push(fence.block)
        fence = null
      }
    } else if (markdown && /^(```|~~~)/.test(trimmed)) {
      close()
      fence = { marker: trimmed.slice(0, 3), block: { start: pos, end, section, code: true } }
    } else if (PAGE_MARK.test(trimmed)) {
      close()
      pages.push({ at: pos, page: Number(PAGE_MARK.exec(trimmed)![1]) })
      // A page opens a new section under the same heading, so a chunk belongs to one page.
      headings.push(headings[section]!)
      section = headings.length - 1
    } else if (markdown && /^#{1,6}\s+\S/.test(trimmed)) {
      close()
      const level = /^#+/.exec(trimmed)![0].length
      while (path.length && path[path.length - 1]!.level >= level) path.pop()
      path.push({ level, title: trimmed.replace(/^#+\s+/, '').replace(/\s+#+$/, '') })
      section = headings.length
      headings.push(path.map((p) => p.title).join(' > '))
      out.push({ start: pos, end, section, code: false })
    } else if (trimmed === '') close()
    else if (para) para.end = end
    else para = { start: pos, end, section, code: false }
    if (nl < 0) break
    pos = nl + 1
  }
  if (fence) out.push(fence.block)
  close()
  return out
}

/** Where to cut [start, end) so the first piece is at most `size` long: the latest good boundary. */
function cutPoint(text: string, start: number, end: number, size: number): number {
  const limit = start + size
  if (end <= limit) return end
  const window = text.slice(start, limit)
  for (const pattern of [/\n\s*\n/g, /\n/g, /[.!?。！？]\s/g, /\s/g]) {
    let best = -1
    for (const m of window.matchAll(pattern)) if (m.index! > size / 3) best = m.index! + m[0].length
    if (best > 0) return start + best
  }
  return limit
}

export function chunkText(text: string, options: ChunkOptions): Chunk[] {
  const size = Math.max(50, Math.floor(options.size))
  const overlap = Math.max(0, Math.min(Math.floor(options.overlap), Math.floor(size / 2)))
  const headings: string[] = []
  const pages: { at: number; page: number }[] = []
  const parts = blocks(text, options.markdown ?? true, headings, pages)

  // Pieces no longer than `size`: big blocks are cut at their best boundaries, short enough
  // that the previous piece's tail still fits in front of each as overlap.
  const pieces: Block[] = []
  const pieceSize = overlap > 0 ? Math.max(25, size - overlap - 8) : size
  for (const b of parts) {
    let s = b.start
    while (s < b.end) {
      const cut = cutPoint(text, s, b.end, b.end - s <= size ? size : pieceSize)
      pieces.push({ ...b, start: s, end: cut })
      s = cut
      while (s < b.end && /\s/.test(text[s]!)) s++
    }
  }

  const pageAt = (at: number): number | null => {
    let page: number | null = null
    for (const p of pages) if (p.at <= at) page = p.page
    return page
  }
  const chunks: Chunk[] = []
  const emit = (start: number, end: number, section: number) => {
    const raw = text.slice(start, end)
    const lead = raw.length - raw.trimStart().length
    const body = raw.trim()
    if (!body) return
    const s = start + lead
    chunks.push({ seq: chunks.length, text: body, heading: headings[section] || null, page: pageAt(s), start: s, end: s + body.length })
  }

  let cur: { start: number; end: number; section: number } | null = null
  for (const p of pieces) {
    if (cur && p.section === cur.section && p.end - cur.start <= size) {
      cur.end = p.end
      continue
    }
    if (cur) {
      emit(cur.start, cur.end, cur.section)
      if (p.section === cur.section && overlap > 0) {
        // The next chunk repeats the previous one's tail, from a word boundary.
        let from = Math.max(cur.start + 1, cur.end - overlap)
        while (from < cur.end && !/\s/.test(text[from - 1]!)) from++
        if (from < p.start && p.end - from <= size) {
          cur = { start: from, end: p.end, section: p.section }
          continue
        }
      }
    }
    cur = { start: p.start, end: p.end, section: p.section }
  }
  if (cur) emit(cur.start, cur.end, cur.section)
  return chunks
}
