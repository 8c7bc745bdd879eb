import { describe, expect, it } from 'vitest'
import { countTokens, extractText, fileKind, imageLimitFor, mimeTypeFor } from '../../../src/core/files'
import { AppErrorException } from '../../../src/shared/errors/app-error'
import { minimalPdf } from '../../fixtures/minimal-pdf'

const bytes = (s: string) => new TextEncoder().encode(s)

async function failure(p: Promise<unknown>): Promise<AppErrorException> {
  try {
    await p
  } catch (error) {
    if (error instanceof AppErrorException) return error
    throw error
  }
  throw new Error('expected a failure')
}

describe('fileKind', () => {
  it('tells images, PDFs and text/code apart by name or type, and refuses the rest', () => {
    expect(fileKind('report.PDF')).toBe('pdf')
    expect(fileKind('blob', 'application/pdf')).toBe('pdf')
    expect(fileKind('photo.jpeg')).toBe('image')
    expect(fileKind('x', 'image/webp')).toBe('image')
    for (const name of ['notes.md', 'main.rs', 'app.tsx', 'Dockerfile', 'data.csv', 'query.sql']) expect(fileKind(name), name).toBe('text')
    expect(fileKind('readme', 'text/plain')).toBe('text')
    expect(fileKind('archive.zip', 'application/zip')).toBeUndefined()
    expect(fileKind('movie.mp4')).toBeUndefined()
  })

  it('fills in a MIME type when the browser gave none', () => {
    expect(mimeTypeFor('a.pdf', '', 'pdf')).toBe('application/pdf')
    expect(mimeTypeFor('a.md', undefined, 'text')).toBe('text/markdown')
    expect(mimeTypeFor('a.png', '', 'image')).toBe('image/png')
    expect(mimeTypeFor('a.ts', 'video/mp2t', 'text')).toBe('video/mp2t')
  })
})

describe('extractText', () => {
  it('reads UTF-8 text and code, dropping the BOM and normalising line ends', async () => {
    expect(await extractText(bytes('\uFEFFline one\r\nline two — ünïcode\r'), 'text', 'a.txt')).toBe('line one\nline two — ünïcode\n')
  })

  it('refuses binary and non-UTF-8 content with FileExtractionError', async () => {
    const nul = await failure(extractText(new Uint8Array([0x68, 0x00, 0x69]), 'text', 'bin.txt'))
    expect(nul.error.errorType).toBe('FileExtractionError')
    expect(nul.error.message).toContain('bin.txt')
    const latin1 = await failure(extractText(new Uint8Array([0x63, 0x61, 0x66, 0xe9]), 'text', 'old.txt'))
    expect(latin1.error.message).toMatch(/not UTF-8/)
  })

  it('reads the text of a PDF page by page', async () => {
    const text = await extractText(minimalPdf('Quarterly revenue rose (slightly) 12%'), 'pdf', 'q.pdf')
    expect(text).toContain('--- page 1 ---')
    expect(text).toContain('Quarterly revenue rose (slightly) 12%')
  })

  it('copies a PDF for PDF.js unless the bytes are handed over, and then reads them in place (no second copy)', async () => {
    const kept = minimalPdf('Kept by the caller')
    expect(await extractText(kept, 'pdf', 'k.pdf')).toContain('Kept by the caller')
    expect(kept.byteLength).toBeGreaterThan(0)
    // A Buffer (what readFile gives) handed over: PDF.js refuses Buffers, so a plain view of its memory is passed and taken.
    const given = Buffer.from(minimalPdf('Handed over to PDF.js'))
    const whole = Buffer.from(given.buffer.slice(given.byteOffset, given.byteOffset + given.byteLength))
    expect(await extractText(whole, 'pdf', 'h.pdf', { handOver: true })).toContain('Handed over to PDF.js')
    expect(whole.buffer.byteLength).toBe(0)
    // A view into a larger buffer (a pooled Buffer) is copied even when handed over: the rest is not ours to take.
    const pooled = new Uint8Array(kept.byteLength + 8)
    pooled.set(kept, 4)
    const part = pooled.subarray(4, 4 + kept.byteLength)
    expect(await extractText(part, 'pdf', 'p.pdf', { handOver: true })).toContain('Kept by the caller')
    expect(pooled.byteLength).toBe(kept.byteLength + 8)
  })

  it('refuses a broken PDF and one without text', async () => {
    const broken = await failure(extractText(bytes('%PDF-1.4 this is not really a pdf'), 'pdf', 'broken.pdf'))
    expect(broken.error.errorType).toBe('FileExtractionError')
    expect(broken.error.message).toContain('not a valid PDF')
    const empty = await failure(extractText(minimalPdf(''), 'pdf', 'scan.pdf'))
    expect(empty.error.message).toMatch(/no selectable text/)
  })
})

describe('countTokens and image limits', () => {
  it('counts about four Latin characters a token and one per CJK character', () => {
    expect(countTokens('abcdefgh')).toBe(2)
    expect(countTokens('你好世界')).toBe(4)
    expect(countTokens('ab你好')).toBe(3)
    expect(countTokens('')).toBe(0)
  })

  it('gives Anthropic a smaller edge than the OpenAI-style default', () => {
    expect(imageLimitFor('anthropic').maxEdge).toBeLessThan(imageLimitFor('openai').maxEdge)
    expect(imageLimitFor(undefined)).toEqual(imageLimitFor('some-custom-provider'))
  })
})
