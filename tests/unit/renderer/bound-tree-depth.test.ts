import { describe, expect, it } from 'vitest'
import { unified } from 'unified'
import remarkParse from 'remark-parse'
import remarkGfm from 'remark-gfm'
import remarkRehype from 'remark-rehype'
import { remarkBoundTreeDepth } from '../../../src/renderer/features/chat/markdown/bound-tree-depth'
import { escapeLongDelimiterRuns } from '../../../src/renderer/features/chat/markdown/bounded-blocks'

interface Node {
  type: string
  value?: string
  children?: Node[]
}

const depthOf = (tree: Node): number => {
  let depth = 0
  let level: Node[] = [tree]
  while (level.length) {
    level = level.flatMap((n) => n.children ?? [])
    if (level.length) depth++
  }
  return depth
}

/** 3,000 nested emphasis nodes around a word (what 6,000 `*` on each side parse to). */
function deepEmphasis(levels: number): Node {
  let inner: Node = { type: 'text', value: 'hello' }
  for (let i = 0; i < levels; i++) inner = { type: i % 2 ? 'strong' : 'emphasis', children: [inner] }
  return { type: 'root', children: [{ type: 'paragraph', children: [inner] }] }
}

const toHast = (tree: Node) => unified().use(remarkRehype).run(tree as never)

describe('tree depth bound', () => {
  it('turns 3,000 nested emphasis nodes into a tree that converts, keeping the text', async () => {
    await expect(toHast(deepEmphasis(3000))).rejects.toThrow(/call stack/)
    const tree = deepEmphasis(3000)
    remarkBoundTreeDepth({ max: 48 })(tree as never)
    expect(depthOf(tree)).toBeLessThanOrEqual(49)
    expect(JSON.stringify(await toHast(tree))).toContain('hello')
  })

  it('turns a too-deep block container into a paragraph of its text', async () => {
    let inner: Node = { type: 'paragraph', children: [{ type: 'text', value: 'bottom' }] }
    for (let i = 0; i < 100; i++) inner = { type: 'blockquote', children: [inner] }
    const tree: Node = { type: 'root', children: [inner] }
    remarkBoundTreeDepth({ max: 10 })(tree as never)
    expect(depthOf(tree)).toBeLessThanOrEqual(11)
    expect(JSON.stringify(await toHast(tree))).toContain('bottom')
  })

  it('leaves ordinary markdown alone', async () => {
    const text = '> quote with **bold** and a [link](https://example.com)\n\n- a\n  - b\n    - c'
    const processor = unified().use(remarkParse).use(remarkGfm)
    const plain = await processor.run(processor.parse(text))
    const bounded = unified().use(remarkParse).use(remarkGfm).use(remarkBoundTreeDepth)
    expect(await bounded.run(bounded.parse(text))).toEqual(plain)
  })
})

describe('long delimiter runs', () => {
  it('are escaped next to text, so they parse in linear time and show as written', async () => {
    const stars = `${'*'.repeat(6000)}hello${'*'.repeat(6000)}`
    const escaped = escapeLongDelimiterRuns(stars)
    expect(escaped).toBe(`${'\\*'.repeat(6000)}hello${'\\*'.repeat(6000)}`)
    const processor = unified().use(remarkParse)
    const tree = processor.parse(escaped) as unknown as Node
    expect(depthOf(tree)).toBeLessThanOrEqual(3)
  })
  it('leave ordinary emphasis and thematic breaks alone', () => {
    for (const text of ['**bold** and *em* and ~~gone~~', '*'.repeat(80), '_'.repeat(40), 'a ***b*** c']) expect(escapeLongDelimiterRuns(text)).toBe(text)
  })
})
