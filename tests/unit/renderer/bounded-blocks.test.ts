import { describe, expect, it } from 'vitest'
import { MAX_NESTING, SEGMENT_DELIMITERS, lineDepth, segmentBlock, tooDeep } from '../../../src/renderer/features/chat/markdown/bounded-blocks'

describe('nesting bound', () => {
  it('measures quotes, list markers and indentation', () => {
    expect(lineDepth('plain text')).toBe(0)
    expect(lineDepth('> > > quoted')).toBe(3)
    expect(lineDepth('>>>>>x')).toBe(5)
    expect(lineDepth('    - item')).toBe(3)
    expect(lineDepth('- - - nested on one line')).toBe(3)
    expect(lineDepth('1. one')).toBe(1)
  })
  it('finds blocks nested deeper than the limit, in one line or over many', () => {
    expect(tooDeep(`${'>'.repeat(3000)} x`)).toBe(true)
    expect(tooDeep(Array.from({ length: 500 }, (_, i) => `${'  '.repeat(i)}- ${i}`).join('\n'))).toBe(true)
    expect(tooDeep(Array.from({ length: 10 }, (_, i) => `${'  '.repeat(i)}- ${i}`).join('\n'))).toBe(false)
    expect(tooDeep(`${'> '.repeat(MAX_NESTING)}x`)).toBe(false)
  })
})

describe('segments of a long block', () => {
  const line = Array.from({ length: 3000 }, (_, i) => `word${i}`).join(' ')
  it('leaves short blocks and fenced blocks whole', () => {
    expect(segmentBlock('short').starts).toEqual([0])
    expect(segmentBlock(`\`\`\`\n${line}\n\`\`\``).starts).toEqual([0])
  })
  it('cuts a long line before a word, every segment within the size', () => {
    const { starts } = segmentBlock(line, undefined, 1000)
    expect(starts.length).toBeGreaterThan(20)
    starts.forEach((start, i) => {
      const end = starts[i + 1] ?? line.length
      expect(end - start).toBeLessThanOrEqual(1000)
      if (i > 0) expect(line[start - 1]).toBe(' ')
    })
  })
  it('cuts a long list at unindented lines only', () => {
    const list = Array.from({ length: 400 }, (_, i) => `- item ${i}\n  continued ${i}`).join('\n')
    const { starts } = segmentBlock(list, undefined, 1000)
    expect(starts.length).toBeGreaterThan(5)
    for (const start of starts.slice(1)) expect(list.slice(start, start + 2)).toBe('- ')
  })
  it('gives the same segments when the text grew in steps as when it came at once, reusing the finished ones', () => {
    let previous = segmentBlock('')
    for (let end = 137; end < line.length; end += 137) {
      const next = segmentBlock(line.slice(0, end), previous, 1000)
      expect(next.starts.slice(0, previous.starts.length - 1)).toEqual(previous.starts.slice(0, -1))
      previous = next
    }
    expect(segmentBlock(line, previous, 1000).starts).toEqual(segmentBlock(line, undefined, 1000).starts)
  })
  it('ends a segment early where the text is dense with emphasis syntax, the same way when streamed', () => {
    const stars = '*a'.repeat(20_000)
    const fresh = segmentBlock(stars)
    fresh.starts.forEach((start, i) => {
      const piece = stars.slice(start, fresh.starts[i + 1])
      expect(piece.replace(/[^*]/g, '').length).toBeLessThanOrEqual(SEGMENT_DELIMITERS)
    })
    let previous = segmentBlock('')
    for (let end = 133; end < stars.length; end += 133) previous = segmentBlock(stars.slice(0, end), previous)
    expect(segmentBlock(stars, previous).starts).toEqual(fresh.starts)
  })
  it('never cuts a surrogate pair', () => {
    const emoji = '😀'.repeat(3000)
    const { starts } = segmentBlock(emoji, undefined, 1001)
    for (const start of starts) expect(emoji.charCodeAt(start) >= 0xdc00 && emoji.charCodeAt(start) <= 0xdfff).toBe(false)
  })
})
