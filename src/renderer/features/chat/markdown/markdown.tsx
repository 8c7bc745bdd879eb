import { memo, useEffect, useMemo, useRef, useSyncExternalStore, type ComponentProps } from 'react'
import ReactMarkdown, { type Components } from 'react-markdown'
import remarkGfm from 'remark-gfm'
import remarkMath from 'remark-math'
import type * as RichPlugins from './rich-plugins'
import { safeLinkHref } from '../../../../shared/security/url-policy'
import { splitBlocksIncremental, type Block } from './split-blocks'
import { escapeLongDelimiterRuns, segmentBlock, tooDeep, type Segments } from './bounded-blocks'
import { CodeBlock } from './code-block'
import { remarkBoundTreeDepth } from './bound-tree-depth'
import { SafeLink } from './safe-link'
import { kbSourceOf } from '../../../../shared/knowledge/citations'
import { KnowledgeCitation } from '../../knowledge/reply-sources'

// Model output is untrusted. react-markdown renders no raw HTML (no rehype-raw); every URL
// goes through the one link policy (safe-link.tsx); KaTeX runs with trust off (no \href,
// \includegraphics…); mermaid renders in strict mode and its SVG is sanitised again
// (mermaid-block.tsx); links open outside the app. Nesting and block length are bounded
// (bounded-blocks.ts), and each message has its own error boundary (message-boundary.tsx).
const remarkPlugins = [remarkGfm, [remarkMath, { singleDollarTextMath: true }], remarkBoundTreeDepth] as ComponentProps<typeof ReactMarkdown>['remarkPlugins']
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
const loadRich = () =>
  (richLoad ??= import('./rich-plugins').then(
    (rich) => {
      rehypePlugins = rehypePluginsOf(rich)
      for (const listener of richListeners) listener()
    },
    // Not loaded (a dropped connection in browser mode): plain blocks now, another try on the next one.
    () => void (richLoad = undefined)
  ))
// Fetched and compiled once the page is idle after start-up: otherwise a reply's first code block
// or formula loads it mid-stream, and its compile and the re-render of every block land in one
// long task while the reply streams. The page's first paint still does without it.
if (typeof requestIdleCallback === 'function') requestIdleCallback(() => void loadRich(), { timeout: 15_000 })
function useRehypePlugins(source: string) {
  const plugins = useSyncExternalStore(
    (listener) => (richListeners.add(listener), () => richListeners.delete(listener)),
    () => rehypePlugins
  )
  useEffect(() => {
    if (plugins || !NEEDS_RICH.test(source)) return
    void loadRich()
  }, [plugins, source])
  return plugins
}

// Links: the one policy (an empty href is drawn as text by SafeLink). Images check their own.
// A knowledge citation's in-page address (#kb-source-n) is kept: it opens the source, never navigates.
const urlTransform = (url: string, key: string) => (key === 'href' ? (kbSourceOf(url) !== undefined ? url : (safeLinkHref(url) ?? '')) : url)

const components: Components = {
  a: ({ href, children }) => {
    const n = kbSourceOf(href)
    return n !== undefined ? <KnowledgeCitation n={n}>{children}</KnowledgeCitation> : <SafeLink href={href || undefined}>{children}</SafeLink>
  },
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

// A segment cut from the middle of a paragraph continues it: its own paragraph is unwrapped.
const inlineComponents: Components = { ...components, p: ({ children }) => <>{children}</> }

/** One piece of markdown, parsed once: memo compares the source text, so finished blocks never re-render. */
const MarkdownBlock = memo(function MarkdownBlock({ source, inline = false }: { source: string; inline?: boolean }) {
  const rehypePlugins = useRehypePlugins(source)
  return (
    <ReactMarkdown remarkPlugins={remarkPlugins} rehypePlugins={rehypePlugins} components={inline ? inlineComponents : components} urlTransform={urlTransform}>
      {escapeLongDelimiterRuns(source)}
    </ReactMarkdown>
  )
})

/** A block that is not parsed: too deeply nested, or too long to parse again on every update. */
const PlainBlock = memo(function PlainBlock({ text }: { text: string }) {
  return (
    <div className="whitespace-pre-wrap" data-testid="markdown-plain">
      {text}
    </div>
  )
})

/** While streaming, a segment longer than this (one that had no safe place to cut) is shown as text until the reply ends. */
const MAX_LIVE_PARSE = 16_000

// `contain` keeps a change in the growing segment from laying out its finished siblings again.
const BLOCK_SEGMENT = { display: 'block', contain: 'content' } as const
const INLINE_SEGMENT = { display: 'inline' } as const

/** Longer paragraphs are shown as blocks of segments even when finished (see BoundedBlock). */
const MAX_INLINE_PARAGRAPH = 10_000

/** A top-level block, bounded in depth and cut into segments when long (bounded-blocks.ts). */
const BoundedBlock = memo(function BoundedBlock({ source, live }: { source: string; live: boolean }) {
  const cache = useRef<Segments>(undefined)
  const deep = useMemo(() => tooDeep(source), [source])
  const segments = useMemo(() => (deep ? undefined : segmentBlock(source, cache.current)), [source, deep])
  cache.current = segments
  if (!segments) return <PlainBlock text={source} />
  const { starts } = segments
  if (starts.length === 1) return live && source.length > MAX_LIVE_PARSE ? <PlainBlock text={source} /> : <MarkdownBlock source={source} />
  // Segments cut inside a line belong to one paragraph, drawn inline in one <p> once the reply
  // is finished. While it streams they are blocks: appending to one inline paragraph makes the
  // browser lay out the whole paragraph again on every update. A paragraph too long to lay
  // out in one go within a frame's budget stays in blocks.
  const runs: number[][] = []
  starts.forEach((start, i) => (i > 0 && source.charCodeAt(start - 1) !== 10 ? runs[runs.length - 1]!.push(i) : runs.push([i])))
  const piece = (i: number, inline: boolean) => {
    const text = source.slice(starts[i], starts[i + 1])
    if (live && i === starts.length - 1 && text.length > MAX_LIVE_PARSE) return <PlainBlock key={starts[i]} text={text} />
    // Markdown trims the space a cut fell after; put it back between the pieces.
    const space = inline && i > 0 && /\s/.test(source[starts[i]! - 1]!) ? ' ' : null
    if (!inline) return <MarkdownBlock key={starts[i]} source={text} />
    return (
      <span key={starts[i]} style={live || source.length > MAX_INLINE_PARAGRAPH ? BLOCK_SEGMENT : INLINE_SEGMENT}>
        {space}
        <MarkdownBlock source={text} inline />
      </span>
    )
  }
  return (
    <>
      {runs.map((run) => (run.length === 1 ? piece(run[0]!, false) : <p key={starts[run[0]!]}>{run.map((i) => piece(i, true))}</p>))}
    </>
  )
})

/** Finished blocks are rendered in groups, so a long reply reconciles a few dozen elements, not thousands. */
const GROUP = 32

const BlockGroup = memo(
  function BlockGroup({ blocks, liveStart }: { blocks: Block[]; liveStart: number }) {
    return (
      <>
        {blocks.map((block) => (
          <BoundedBlock key={block.start} source={block.text} live={block.start === liveStart} />
        ))}
      </>
    )
  },
  // Finished blocks keep their identity (splitBlocksIncremental), so identity is enough.
  (a, b) => a.liveStart === b.liveStart && a.blocks.length === b.blocks.length && a.blocks.every((block, i) => block === b.blocks[i])
)

/**
 * Markdown of a message. While it streams, only the last block changes with each update:
 * earlier blocks keep their identity, their group is skipped, and only the tail is parsed
 * (and of a long tail only its last segment).
 */
export function Markdown({ text, streaming = false }: { text: string; streaming?: boolean }) {
  const cache = useRef<{ text: string; blocks: Block[] }>(undefined)
  const { groups, liveStart } = useMemo(() => {
    const blocks = splitBlocksIncremental(cache.current, text)
    cache.current = { text, blocks }
    const out: Block[][] = []
    for (let i = 0; i < blocks.length; i += GROUP) out.push(blocks.slice(i, i + GROUP))
    return { groups: out, liveStart: streaming ? (blocks[blocks.length - 1]?.start ?? -1) : -1 }
  }, [text, streaming])
  return (
    <div className="markdown space-y-3 leading-relaxed break-words">
      {groups.map((group) => (
        <BlockGroup key={group[0]!.start} blocks={group} liveStart={group.some((b) => b.start === liveStart) ? liveStart : -1} />
      ))}
    </div>
  )
}
