import { memo, useEffect, useMemo, useRef, useSyncExternalStore, type ComponentProps } from 'react'
import ReactMarkdown, { type Components } from 'react-markdown'
import remarkGfm from 'remark-gfm'
import remarkMath from 'remark-math'
import type * as RichPlugins from './rich-plugins'
import { splitBlocksIncremental, type Block } from './split-blocks'
import { CodeBlock } from './code-block'

// Model output is untrusted. react-markdown renders no raw HTML (no rehype-raw) and drops
// javascript:/vbscript: URLs; KaTeX runs with trust off (no \href, \includegraphics…);
// mermaid renders in strict mode (mermaid-block.tsx); links open outside the app.
const remarkPlugins = [remarkGfm, [remarkMath, { singleDollarTextMath: true }]] as ComponentProps<typeof ReactMarkdown>['remarkPlugins']
const rehypePluginsOf = ({ rehypeKatex, rehypeHighlight }: typeof RichPlugins) =>
  [
    [rehypeKatex, { trust: false, strict: 'ignore', throwOnError: false, maxExpand: 200, maxSize: 50 }],
    [rehypeHighlight, { detect: false, ignoreMissing: true }]
  ] as ComponentProps<typeof ReactMarkdown>['rehypePlugins']

// KaTeX and the highlighter load on first use (./rich-plugins): until then a block renders
// without them, and every block re-renders once when they arrive.
let rehypePlugins: ComponentProps<typeof ReactMarkdown>['rehypePlugins']
let richLoad: Promise<void> | undefined
const richListeners = new Set<() => void>()
const NEEDS_RICH = /\$|\\[([]|```|~~~/
function useRehypePlugins(source: string) {
  const plugins = useSyncExternalStore(
    (listener) => (richListeners.add(listener), () => richListeners.delete(listener)),
    () => rehypePlugins
  )
  useEffect(() => {
    if (plugins || !NEEDS_RICH.test(source)) return
    richLoad ??= import('./rich-plugins').then(
      (rich) => {
        rehypePlugins = rehypePluginsOf(rich)
        for (const listener of richListeners) listener()
      },
      // Not loaded (a dropped connection in browser mode): plain blocks now, another try on the next one.
      () => void (richLoad = undefined)
    )
  }, [plugins, source])
  return plugins
}

const components: Components = {
  a: ({ href, children }) => (
    <a href={href} target="_blank" rel="noreferrer noopener" className="text-accent underline underline-offset-2">
      {children}
    </a>
  ),
  pre: ({ children }) => <>{children}</>,
  code: ({ className, children, node }) => {
    const isBlock = node?.position && node.position.start.line !== node.position.end.line
    const language = /language-([\w+-]+)/.exec(className ?? '')?.[1]
    if (!isBlock && !language) return <code className="rounded bg-zinc-100 px-1 py-0.5 text-[0.9em] dark:bg-zinc-800">{children}</code>
    return <CodeBlock language={language} className={className}>{children}</CodeBlock>
  },
  table: ({ children }) => (
    <div className="my-3 overflow-x-auto">
      <table className="min-w-full border-collapse text-sm">{children}</table>
    </div>
  ),
  th: ({ children }) => <th className="border border-zinc-300 px-2 py-1 text-left dark:border-zinc-700">{children}</th>,
  td: ({ children }) => <td className="border border-zinc-300 px-2 py-1 dark:border-zinc-700">{children}</td>,
  img: ({ src, alt }) => (typeof src === 'string' && /^(data:image\/|blob:)/.test(src) ? <img src={src} alt={alt ?? ''} className="max-w-full rounded" /> : <span>{alt}</span>)
}

/** One block, parsed once: memo compares the source text, so finished blocks never re-render. */
const MarkdownBlock = memo(function MarkdownBlock({ source }: { source: string }) {
  const rehypePlugins = useRehypePlugins(source)
  return (
    <ReactMarkdown remarkPlugins={remarkPlugins} rehypePlugins={rehypePlugins} components={components}>
      {source}
    </ReactMarkdown>
  )
})

/** Finished blocks are rendered in groups, so a long reply reconciles a few dozen elements, not thousands. */
const GROUP = 32

const BlockGroup = memo(
  function BlockGroup({ blocks }: { blocks: Block[] }) {
    return (
      <>
        {blocks.map((block) => (
          <MarkdownBlock key={block.start} source={block.text} />
        ))}
      </>
    )
  },
  // Finished blocks keep their identity (splitBlocksIncremental), so identity is enough.
  (a, b) => a.blocks.length === b.blocks.length && a.blocks.every((block, i) => block === b.blocks[i])
)

/**
 * Markdown of a message. While it streams, only the last block changes with each update:
 * earlier blocks keep their identity, their group is skipped, and only the tail is parsed.
 */
export function Markdown({ text }: { text: string }) {
  const cache = useRef<{ text: string; blocks: Block[] }>(undefined)
  const groups = useMemo(() => {
    const blocks = splitBlocksIncremental(cache.current, text)
    cache.current = { text, blocks }
    const out: Block[][] = []
    for (let i = 0; i < blocks.length; i += GROUP) out.push(blocks.slice(i, i + GROUP))
    return out
  }, [text])
  return (
    <div className="markdown space-y-3 leading-relaxed break-words">
      {groups.map((group) => (
        <BlockGroup key={group[0]!.start} blocks={group} />
      ))}
    </div>
  )
}
