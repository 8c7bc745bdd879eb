import { describe, expect, it } from 'vitest'
import { unified } from 'unified'
import remarkParse from 'remark-parse'
import remarkRehype from 'remark-rehype'
import type { Element, Root, RootContent } from 'hast'
import { rehypeHighlight } from '../../../src/renderer/features/chat/markdown/rich-plugins'

const OPTIONS = { detect: false, ignoreMissing: true }

/** The classes of every span the highlighter put in the tree. */
function spanClasses(tree: Root): string[] {
  const out: string[] = []
  const walk = (node: Root | RootContent) => {
    if (node.type === 'element' && node.tagName === 'span') out.push(...((node as Element).properties['className'] as string[]))
    if ('children' in node) node.children.forEach(walk)
  }
  walk(tree)
  return out
}

// react-markdown builds a processor on every render; each must highlight with the one shared highlighter.
const render = (markdown: string) => {
  const processor = unified().use(remarkParse).use(remarkRehype).use(rehypeHighlight, OPTIONS)
  return processor.runSync(processor.parse(markdown)) as Root
}

describe('code highlighting shared across renders', () => {
  it('highlights every tree, in each block’s own language, render after render', () => {
    const ts = render('```ts\nconst a: number = 1\n```')
    const py = render('```python\ndef f():\n    return None\n```')
    const again = render('```ts\nfunction add(a: number) { return a }\n```')
    expect(spanClasses(ts)).toContain('hljs-keyword')
    expect(spanClasses(py)).toContain('hljs-keyword')
    expect(spanClasses(py)).toContain('hljs-title')
    expect(spanClasses(again)).toContain('hljs-keyword')
    // An unknown language is left as plain text, not an error.
    expect(spanClasses(render('```nosuchlang\nx\n```'))).toEqual([])
  })
})
