import { describe, expect, it } from 'vitest'
import { splitBlocks, splitBlocksIncremental } from '../../../src/renderer/features/chat/markdown/split-blocks'

const texts = (s: string) => splitBlocks(s).map((b) => b.text.trimEnd())

describe('splitting markdown into blocks', () => {
  it('splits paragraphs at blank lines', () => {
    expect(texts('one\n\ntwo\nstill two\n\n\nthree')).toEqual(['one', 'two\nstill two', 'three'])
  })

  it('keeps a fenced code block with blank lines whole', () => {
    const md = 'intro\n\n```ts\nconst a = 1\n\nconst b = 2\n```\n\nafter'
    expect(texts(md)).toEqual(['intro', '```ts\nconst a = 1\n\nconst b = 2\n```', 'after'])
  })

  it('keeps an unfinished fence (still streaming) as one last block', () => {
    expect(texts('a\n\n```py\nx = 1\n\ny = 2')).toEqual(['a', '```py\nx = 1\n\ny = 2'])
  })

  it('keeps a $$ math block whole', () => {
    expect(texts('$$\na\n\nb\n$$\n\nc')).toEqual(['$$\na\n\nb\n$$', 'c'])
  })

  it('keeps a loose list together', () => {
    expect(texts('- a\n\n- b\n\npara')).toEqual(['- a\n\n- b', 'para'])
  })

  it('gives earlier blocks stable offsets as text is appended', () => {
    const first = splitBlocks('alpha\n\nbeta')
    const later = splitBlocks('alpha\n\nbeta gamma\n\ndelta')
    expect(later[0]).toEqual(first[0])
    expect(later[1]!.start).toBe(first[1]!.start)
  })

  it('reassembles to the same content', () => {
    const md = '# T\n\npara *x*\n\n```\ncode\n\nmore\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n> quote'
    const joined = splitBlocks(md).map((b) => b.text.trimEnd()).join('\n\n')
    expect(joined.replace(/\n+/g, '\n')).toBe(md.replace(/\n+/g, '\n'))
  })

  it('handles empty input and only blank lines', () => {
    expect(splitBlocks('')).toEqual([])
    expect(splitBlocks('\n\n\n')).toEqual([])
  })

  it('splits incrementally to the same result, keeping finished blocks as the same objects', () => {
    const full = 'intro para\n\n```ts\nconst a = 1\n\nconst b = 2\n```\n\n- x\n\n- y\n\nlast words here'
    let previous: { text: string; blocks: ReturnType<typeof splitBlocks> } | undefined
    for (let cut = 1; cut <= full.length; cut += 3) {
      const text = full.slice(0, cut)
      const blocks = splitBlocksIncremental(previous, text)
      expect(blocks).toEqual(splitBlocks(text))
      if (previous && previous.blocks.length > 1) expect(blocks[0]).toBe(previous.blocks[0])
      previous = { text, blocks }
    }
    // Text that did not just grow (an edit) is split from scratch.
    expect(splitBlocksIncremental(previous, 'other\n\ntext')).toEqual(splitBlocks('other\n\ntext'))
  })
})
