import type { ArtifactType } from './artifact-tag'

/**
 * What the app knows about each artifact type: the instruction the agent setting adds, which
 * fenced blocks may be opened as artifacts, file names, and the message that asks for a fix.
 */

export const ARTIFACT_INSTRUCTION = [
  'You can create artifacts: self-contained content the user can view and run beside the chat.',
  'Write one as <artifact identifier="kebab-case-id" type="TYPE" title="Short title">CONTENT</artifact>.',
  'TYPE is html (a complete page; the default), react (one component in JSX, exported as default; React and its hooks are available, no other imports), python (a script; standard library only, print output is shown, and display(svg_text or png_bytes) shows an image such as a chart drawn as SVG) or code (source to read, with language="…").',
  'Artifacts run offline without network access. To change an artifact, write it again in full with the same identifier.',
  'Use artifacts only for substantial content (a page, an app, a script); answer everything else in plain text.'
].join('\n')

/** The system prompt a request sends: the agent's own, plus the artifact instruction when the setting is on. */
export function withArtifactInstruction(systemPrompt: string, artifacts: boolean | undefined): string {
  if (!artifacts) return systemPrompt
  return systemPrompt.trim() ? `${systemPrompt}\n\n${ARTIFACT_INSTRUCTION}` : ARTIFACT_INSTRUCTION
}

/** A whole HTML document (not a snippet): opening it as a page makes sense. */
export function isHtmlDocument(code: string): boolean {
  const head = code.trimStart().slice(0, 200).toLowerCase()
  return head.startsWith('<!doctype html') || /^<html[\s>]/.test(head)
}

/** The artifact type a fenced block may be opened as, if any. */
export function artifactTypeForCodeBlock(language: string | undefined, code: string): ArtifactType | undefined {
  const lang = (language ?? '').toLowerCase()
  if (lang === 'html' || lang === 'htm') return 'html'
  if (lang === 'svg' || ((lang === 'xml' || lang === '') && /^\s*(<\?xml[^>]*>\s*)?<svg[\s>]/i.test(code))) return 'svg'
  if (lang === 'mermaid') return 'mermaid'
  if (isHtmlDocument(code)) return 'html'
  return undefined
}

/** The user message "ask the model to fix" sends. */
export function fixRequestText(title: string, error: string): string {
  const detail = error.length > 4000 ? `${error.slice(0, 4000)}…` : error
  return `The artifact "${title}" failed with this error:\n\n\`\`\`\n${detail.replace(/```/g, '`\u200b``')}\n\`\`\`\n\nPlease fix it and write the whole artifact again with the same identifier.`
}

/** Whether a type runs in the sandboxed frame (the rest is shown by the app itself). */
export const runsInSandbox = (type: ArtifactType) => type === 'html' || type === 'svg' || type === 'react' || type === 'python'
