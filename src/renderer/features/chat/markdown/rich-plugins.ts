// KaTeX and the syntax highlighter with their CSS: a chunk of its own that markdown.tsx loads
// the first time a message has math or a fenced code block, so the page starts without them.
import rehypeHighlight from 'rehype-highlight'
import rehypeKatex from 'rehype-katex'
import 'katex/dist/katex.min.css'
import 'highlight.js/styles/github-dark.css'

export { rehypeHighlight, rehypeKatex }
