import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { extractText } from '../../../src/core/files/extract-text'
import { writeBigPdf } from '../../fixtures/big-pdf'

// The writer behind the 200 MB PDF test (tests/integration/knowledge/big-pdf.test.ts), checked
// small: its xref offsets are exact, its hash is the file's, and PDF.js reads every page.
const dir = mkdtempSync(join(tmpdir(), 'sb-big-pdf-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('writeBigPdf', () => {
  it('writes a valid PDF with a large image whose xref points at every object and whose pages give their text', async () => {
    const pdf = await writeBigPdf(join(dir, 'small.pdf'), ['First page (with parentheses).', 'Second page.'], 3 * 1024 * 1024 + 17)
    const bytes = readFileSync(pdf.path)
    expect(bytes.length).toBe(pdf.size)
    expect(bytes.length).toBeGreaterThan(3 * 1024 * 1024)
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(pdf.sha256)
    // Every xref entry is the byte offset of "<n> 0 obj".
    const text = bytes.toString('latin1')
    const xrefAt = Number(/startxref\n(\d+)\n%%EOF\n$/.exec(text)![1])
    expect(text.slice(xrefAt, xrefAt + 5)).toBe('xref\n')
    const entries = text.slice(xrefAt).split('\n').slice(3).filter((l) => / 00000 n $/.test(l))
    expect(entries).toHaveLength(8)
    entries.forEach((line, i) => expect(text.slice(Number(line.slice(0, 10)), Number(line.slice(0, 10)) + 10)).toMatch(new RegExp(`^${i + 1} 0 obj\\n`)))
    const extracted = await extractText(bytes, 'pdf', 'small.pdf')
    expect(extracted).toContain('First page (with parentheses).')
    expect(extracted).toContain('--- page 2 ---\nSecond page.')
  })
})
