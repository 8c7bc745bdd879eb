import { AppErrorException } from '../../shared/errors/app-error'
import type { FileKind } from './file-kind'

const extractionFailed = (name: string, reason: string) =>
  new AppErrorException({ errorType: 'FileExtractionError', status: 422, message: `The text of ${name} could not be read: ${reason}.` })

/** UTF-8 text (BOM dropped); a file with NUL bytes or invalid UTF-8 is binary, not text. */
function decodeText(bytes: Uint8Array, name: string): string {
  if (bytes.includes(0)) throw extractionFailed(name, 'it is a binary file, not text')
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes)
  } catch {
    throw extractionFailed(name, 'it is not UTF-8 text')
  }
}

export interface ExtractOptions {
  /**
   * The caller will not use `bytes` again: PDF.js may take (detach) their buffer instead of a
   * copy, so a 200 MB PDF is in memory once, not twice.
   */
  handOver?: boolean
}

/** The bytes for PDF.js: a plain Uint8Array (it refuses a Buffer) over the same memory when they are handed over whole, else a copy. */
function forPdfJs(bytes: Uint8Array, handOver: boolean): Uint8Array {
  const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer
  return handOver && whole ? new Uint8Array(bytes.buffer, 0, bytes.byteLength) : new Uint8Array(bytes)
}

async function pdfText(bytes: Uint8Array, name: string, handOver: boolean): Promise<string> {
  // unpdf bundles PDF.js's serverless build: loaded on first use so start-up stays light.
  const { extractText, getDocumentProxy } = await import('unpdf')
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>
  try {
    // PDF.js takes ownership of (detaches) the buffer it is given: a copy unless handed over.
    pdf = await getDocumentProxy(forPdfJs(bytes, handOver))
  } catch (error) {
    const reason = error instanceof Error && /password/i.test(error.name + error.message) ? 'it is password-protected' : 'it is not a valid PDF'
    throw extractionFailed(name, reason)
  }
  try {
    const { text } = await extractText(pdf, { mergePages: false })
    const pages = (text as string[]).map((page, i) => `--- page ${i + 1} ---\n${page.trim()}`)
    const joined = pages.join('\n\n')
    if (!(text as string[]).some((page) => page.trim())) throw extractionFailed(name, 'it has no selectable text (a scan needs OCR first)')
    return joined
  } finally {
    await pdf.loadingTask.destroy()
  }
}

/** The text of a text, Markdown, code or PDF file; throws FileExtractionError with the reason. */
export async function extractText(bytes: Uint8Array, kind: Exclude<FileKind, 'image'>, name: string, options: ExtractOptions = {}): Promise<string> {
  const text = kind === 'pdf' ? await pdfText(bytes, name, options.handOver ?? false) : decodeText(bytes, name)
  return text.replace(/\r\n?/g, '\n')
}
