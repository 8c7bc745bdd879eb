// KaTeX and the syntax highlighter with their CSS: a chunk of its own that markdown.tsx loads
// the first time a message has math or a fenced code block, so the page starts without them.
import rehypeHighlightPlugin, { type Options as HighlightOptions } from 'rehype-highlight'
import rehypeKatex from 'rehype-katex'
import 'katex/dist/katex.min.css'
import 'highlight.js/styles/github-dark.css'

// rehype-highlight builds a highlighter with every common grammar each time a processor is made,
// and react-markdown makes one per render: during a streaming reply that was most of the
// highlighting time. Its transformer keeps no state between trees, so one is built and shared
// (the options are the same constant on every render).
let highlighter: ReturnType<typeof rehypeHighlightPlugin> | undefined
export function rehypeHighlight(options: HighlightOptions) {
  return (highlighter ??= rehypeHighlightPlugin(options))
}

export { rehypeKatex }
