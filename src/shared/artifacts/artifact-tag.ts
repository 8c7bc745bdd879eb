/**
 * The artifact tag a model writes when the agent's "artifacts" setting is on:
 *
 *   <artifact identifier="counter" type="react" title="Counter">…content…</artifact>
 *
 * One parser for finished and streaming replies. Mid-stream the text may end inside the opening
 * tag (`<artif`, `<artifact identifier="a" ty`) or before the closing tag: the first is held back
 * from the visible text, the second is an artifact with `complete: false` whose content grows.
 */

export const ARTIFACT_TYPES = ['code', 'html', 'python', 'react', 'svg', 'mermaid'] as const
export type ArtifactType = (typeof ARTIFACT_TYPES)[number]

export interface ParsedArtifact {
  identifier: string
  type: ArtifactType
  title: string
  /** For `code`: the language the model named (highlighting, file extension). */
  language?: string
  content: string
  /** False while the closing tag has not arrived yet. */
  complete: boolean
}

export type ReplySegment = { kind: 'text'; text: string } | { kind: 'artifact'; artifact: ParsedArtifact }

const OPEN = '<artifact'
const CLOSE = '</artifact>'

/** Type names models use for the same thing; anything unknown is html, the default of product.md. */
export function normaliseArtifactType(raw: string | undefined): ArtifactType {
  const value = (raw ?? '').trim().toLowerCase()
  if ((ARTIFACT_TYPES as readonly string[]).includes(value)) return value as ArtifactType
  if (value === 'image/svg+xml') return 'svg'
  if (value === 'application/vnd.ant.react' || value === 'jsx' || value === 'tsx') return 'react'
  if (value === 'application/vnd.ant.code' || value === 'text/plain') return 'code'
  if (value === 'py' || value === 'application/x-python') return 'python'
  if (value === 'text/vnd.mermaid' || value === 'application/vnd.ant.mermaid') return 'mermaid'
  return 'html'
}

const ENTITIES: Record<string, string> = { '&quot;': '"', '&apos;': "'", '&#39;': "'", '&lt;': '<', '&gt;': '>', '&amp;': '&' }
const unescapeAttribute = (value: string) => value.replace(/&(?:quot|apos|#39|lt|gt|amp);/g, (m) => ENTITIES[m] ?? m)

function parseAttributes(source: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const match of source.matchAll(/([A-Za-z_:][-A-Za-z0-9_:.]*)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/g)) {
    const name = match[1]!.toLowerCase()
    out[name] = unescapeAttribute(match[2] ?? match[3] ?? match[4] ?? '')
  }
  return out
}

/** Models often put a fenced block inside the tag; the artifact is what is inside the fence. */
function unfence(content: string): { content: string; language?: string } {
  const trimmed = content.replace(/^\s*\n/, '').replace(/\s+$/, '')
  const open = /^\s*(`{3,}|~{3,})([^\n`]*)\n/.exec(trimmed)
  if (!open) return { content: trimmed }
  const fence = open[1]!
  const body = trimmed.slice(open[0].length)
  // Mid-stream the closing fence may not have arrived yet.
  const closeAt = body.lastIndexOf(fence)
  const inner = closeAt >= 0 && body.slice(closeAt + fence.length).trim() === '' ? body.slice(0, closeAt) : body
  const language = open[2]!.trim().split(/\s+/)[0]
  return { content: inner.replace(/\n$/, ''), ...(language ? { language } : {}) }
}

/** A prefix of `<artifact …>` at the very end of the text: not shown until it is decided. */
function pendingOpenAt(text: string): number {
  const lt = text.lastIndexOf('<')
  if (lt < 0) return -1
  const tail = text.slice(lt)
  if (tail.includes('>')) return -1
  if (tail.length <= OPEN.length) return OPEN.startsWith(tail) ? lt : -1
  return tail.startsWith(OPEN) && /\s/.test(tail[OPEN.length]!) ? lt : -1
}

/** Splits a reply into text and artifacts, in order. */
export function parseReply(text: string): ReplySegment[] {
  const segments: ReplySegment[] = []
  const pushText = (value: string) => {
    if (!value) return
    const last = segments[segments.length - 1]
    if (last?.kind === 'text') last.text += value
    else segments.push({ kind: 'text', text: value })
  }
  let at = 0
  let count = 0
  while (at < text.length) {
    const start = findOpen(text, at)
    if (start < 0) {
      const pending = pendingOpenAt(text.slice(at))
      pushText(pending >= 0 ? text.slice(at, at + pending) : text.slice(at))
      break
    }
    pushText(text.slice(at, start))
    const headEnd = text.indexOf('>', start)
    if (headEnd < 0) break // the opening tag is still arriving
    const attributes = parseAttributes(text.slice(start + OPEN.length, headEnd))
    const bodyStart = headEnd + 1
    const closeAt = text.indexOf(CLOSE, bodyStart)
    let body: string
    let complete: boolean
    if (closeAt < 0) {
      body = text.slice(bodyStart)
      // Hold back a partial closing tag at the end (`</artif`).
      for (let n = Math.min(CLOSE.length - 1, body.length); n > 0; n--) {
        if (CLOSE.startsWith(body.slice(body.length - n))) {
          body = body.slice(0, body.length - n)
          break
        }
      }
      complete = false
      at = text.length
    } else {
      body = text.slice(bodyStart, closeAt)
      complete = true
      at = closeAt + CLOSE.length
    }
    count++
    const unfenced = unfence(body)
    const type = normaliseArtifactType(attributes['type'])
    const language = attributes['language'] ?? unfenced.language
    segments.push({
      kind: 'artifact',
      artifact: {
        identifier: (attributes['identifier'] ?? attributes['id'] ?? `artifact-${count}`).trim() || `artifact-${count}`,
        type,
        title: (attributes['title'] ?? '').trim() || (attributes['identifier'] ?? `Artifact ${count}`),
        ...(language ? { language } : {}),
        content: unfenced.content,
        complete
      }
    })
  }
  return segments
}

function findOpen(text: string, from: number): number {
  let at = text.indexOf(OPEN, from)
  while (at >= 0) {
    const next = text[at + OPEN.length]
    if (next !== undefined && /[\s>]/.test(next)) return at
    at = text.indexOf(OPEN, at + 1)
  }
  return -1
}

/** The artifacts of a reply, in order. */
export function artifactsOf(text: string): ParsedArtifact[] {
  if (!text.includes('<artifact')) return []
  return parseReply(text).flatMap((s) => (s.kind === 'artifact' ? [s.artifact] : []))
}
