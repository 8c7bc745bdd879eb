/**
 * A remark plugin that bounds the depth of the parsed tree. The parser survives any nesting,
 * but turning the tree into HTML and React recurses once per level: 6,000 `*` around a word
 * (3,000 nested emphasis nodes) overflow the stack. Below `max` levels a subtree is replaced
 * by its plain text. Walks with an explicit stack, so the plugin itself cannot overflow.
 */
interface Node {
  type: string
  value?: unknown
  children?: Node[]
  [key: string]: unknown
}

export const MAX_TREE_DEPTH = 48

// Nodes whose children are phrasing content: a text child fits them as they are.
const PHRASING_PARENTS = new Set(['paragraph', 'heading', 'emphasis', 'strong', 'delete', 'link', 'linkReference', 'tableCell'])

function textOf(root: Node): string {
  let out = ''
  const stack: Node[] = [root]
  while (stack.length > 0) {
    const node = stack.pop()!
    if (typeof node.value === 'string') out += node.value
    if (node.children) for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!)
  }
  return out
}

export function remarkBoundTreeDepth(options: { max?: number } = {}) {
  const max = options.max ?? MAX_TREE_DEPTH
  return (tree: Node) => {
    const stack: [Node, number][] = [[tree, 0]]
    while (stack.length > 0) {
      const [node, depth] = stack.pop()!
      if (!node.children) continue
      if (depth < max) {
        for (const child of node.children) stack.push([child, depth + 1])
        continue
      }
      const text: Node = { type: 'text', value: textOf(node) }
      if (PHRASING_PARENTS.has(node.type)) {
        node.children = [text]
      } else {
        // A block container (quote, list, item…): it becomes a paragraph of its text.
        for (const key of Object.keys(node)) if (key !== 'position') delete node[key]
        node.type = 'paragraph'
        node.children = [text]
      }
    }
  }
}
