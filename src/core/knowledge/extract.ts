import { AppErrorException } from '../../shared/errors/app-error'
import { extractText, type ExtractOptions } from '../files/extract-text'
import { fileKind } from '../files/file-kind'
import { htmlToText } from './html-to-text'

/** What a knowledge base can read, by extension; anything else is skipped in folders and refused alone. */
export type KnowledgeFormat = 'markdown' | 'text' | 'code' | 'pdf' | 'docx' | 'html'

const MARKDOWN = new Set(['md', 'markdown', 'mdx'])
const PLAIN = new Set(['txt', 'text', 'rst', 'adoc', 'org', 'log', 'csv', 'tsv'])

export const extensionOf = (name: string): string => {
  const base = name.split(/[\\/]/).pop() ?? name
  const dot = base.lastIndexOf('.')
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : ''
}

export function knowledgeFormat(name: string): KnowledgeFormat | undefined {
  const ext = extensionOf(name)
  if (ext === 'docx') return 'docx'
  if (ext === 'html' || ext === 'htm' || ext === 'xhtml') return 'html'
  if (MARKDOWN.has(ext)) return 'markdown'
  if (PLAIN.has(ext)) return 'text'
  const kind = fileKind(name)
  if (kind === 'pdf') return 'pdf'
  if (kind === 'text') return 'code'
  return undefined
}

const failed = (name: string, reason: string) =>
  new AppErrorException({ errorType: 'FileExtractionError', status: 422, message: `The text of ${name} could not be read: ${reason}.` })

/**
 * The text of a file for chunking. Markdown headings in it (also made from DOCX and HTML ones)
 * become chunk context. With `handOver`, `bytes` may be taken (a PDF's buffer detached).
 */
export async function extractForKnowledge(bytes: Uint8Array, name: string, options: ExtractOptions = {}): Promise<{ text: string; markdown: boolean }> {
  const format = knowledgeFormat(name)
  if (!format) throw failed(name, 'this kind of file is not supported (text, Markdown, code, PDF, DOCX and HTML are)')
  if (bytes.length === 0) throw failed(name, 'the file is empty')
  if (format === 'docx') {
    const mammoth = await import('mammoth')
    let html: string
    try {
      // A Buffer over the same memory, not a copy.
      html = (await mammoth.convertToHtml({ buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) })).value
    } catch {
      throw failed(name, 'it is not a valid DOCX document')
    }
    return { text: htmlToText(html), markdown: true }
  }
  if (format === 'html') return { text: htmlToText(await extractText(bytes, 'text', name)), markdown: true }
  const text = await extractText(bytes, format === 'pdf' ? 'pdf' : 'text', name, options)
  return { text, markdown: format === 'markdown' || format === 'text' || format === 'pdf' }
}
