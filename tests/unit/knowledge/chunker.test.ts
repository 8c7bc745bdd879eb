import { describe, expect, it } from 'vitest'
import { chunkText } from '../../../src/core/knowledge/chunker'

const doc = [
  '# Install',
  '',
  'Switchboard installs from a package.',
  '',
  '## Linux',
  '',
  'Use the AppImage or the deb.',
  '',
  '```sh',
  'sudo dpkg -i switchboard.deb',
  '',
  'switchboard --version',
  '```',
  '',
  '# Use',
  '',
  'Open a chat and pick a model.'
].join('\n')

describe('chunkText', () => {
  it('keeps headings as context, never crosses one, and gives exact character ranges', () => {
    const chunks = chunkText(doc, { size: 1000, overlap: 100 })
    expect(chunks.map((c) => c.heading)).toEqual(['Install', 'Install > Linux', 'Use'])
    for (const c of chunks) expect(doc.slice(c.start, c.end)).toBe(c.text)
    // The fenced block stays whole, blank line included.
    expect(chunks[1]!.text).toContain('sudo dpkg -i switchboard.deb\n\nswitchboard --version\n```')
  })

  it('splits long sections at paragraph or sentence boundaries within size, with overlap', () => {
    const sentences = Array.from({ length: 60 }, (_, i) => `Sentence number ${i} talks about topic ${i % 7}.`)
    const text = sentences.join(' ')
    const chunks = chunkText(text, { size: 300, overlap: 60 })
    expect(chunks.length).toBeGreaterThan(5)
    for (const c of chunks) {
      expect(c.text.length).toBeLessThanOrEqual(300)
      expect(text.slice(c.start, c.end)).toBe(c.text)
    }
    // Consecutive chunks overlap, and together they cover the whole text.
    for (let i = 1; i < chunks.length; i++) expect(chunks[i]!.start).toBeLessThan(chunks[i - 1]!.end)
    expect(chunks[0]!.start).toBe(0)
    expect(chunks[chunks.length - 1]!.end).toBe(text.length)
    // Cuts fall after a sentence, not inside a word.
    for (const c of chunks.slice(0, -1)) expect(c.text).toMatch(/[.\d]$/)
  })

  it('cuts a text without any whitespace hard at the size', () => {
    const chunks = chunkText('x'.repeat(1000), { size: 256, overlap: 0 })
    expect(chunks.map((c) => c.text.length)).toEqual([256, 256, 256, 232])
  })

  it('carries the PDF page of each chunk', () => {
    const text = '--- page 1 ---\nFirst page text.\n\n--- page 2 ---\nSecond page text.'
    const chunks = chunkText(text, { size: 20, overlap: 0 })
    expect(chunks.map((c) => [c.page, c.text])).toEqual([
      [1, 'First page text.'],
      [2, 'Second page text.']
    ])
  })

  it('does not read # comments in code as headings when markdown is off', () => {
    const chunks = chunkText('# a comment\nx = 1\n', { size: 500, overlap: 0, markdown: false })
    expect(chunks).toHaveLength(1)
    expect(chunks[0]!.heading).toBeNull()
  })

  it('an empty or blank text has no chunks', () => {
    expect(chunkText('', { size: 500, overlap: 50 })).toEqual([])
    expect(chunkText(' \n\n  ', { size: 500, overlap: 50 })).toEqual([])
  })
})
