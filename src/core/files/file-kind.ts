/** What we can do with an uploaded file: show it to a vision model, or read its text. */
export type FileKind = 'image' | 'pdf' | 'text'

const IMAGE_TYPES: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', webp: 'image/webp', gif: 'image/gif' }

// Plain text, Markdown and the source and config files people paste into a chat. Anything
// else is refused up front rather than decoded into noise.
const TEXT_EXTENSIONS = new Set(
  (
    'txt text md markdown mdx rst adoc org csv tsv log json jsonl ndjson yaml yml toml ini cfg conf env xml html htm css scss less svg ' +
    'js mjs cjs jsx ts mts cts tsx vue svelte py pyi rb php java kt kts scala go rs c h cc cpp cxx hpp hh cs fs swift m mm dart lua pl pm r jl ' +
    'sh bash zsh fish ps1 bat cmd sql graphql gql proto tf hcl gradle makefile dockerfile cmake ex exs erl hs ml clj elm nim zig v sol tex bib diff patch'
  ).split(' ')
)

const extensionOf = (name: string): string => {
  const base = name.split(/[\\/]/).pop() ?? name
  const dot = base.lastIndexOf('.')
  return (dot >= 0 ? base.slice(dot + 1) : base).toLowerCase()
}

/** The kind of a file from its name and declared type; undefined when we cannot use it. */
export function fileKind(name: string, mimeType = ''): FileKind | undefined {
  const ext = extensionOf(name)
  const mime = mimeType.toLowerCase()
  if (ext === 'pdf' || mime === 'application/pdf') return 'pdf'
  if (IMAGE_TYPES[ext] || /^image\/(png|jpeg|webp|gif)$/.test(mime)) return 'image'
  if (TEXT_EXTENSIONS.has(ext) || mime.startsWith('text/') || mime === 'application/json' || mime === 'application/xml') return 'text'
  return undefined
}

/** A MIME type for storage when the browser gave none (files dropped from some apps have ''). */
export function mimeTypeFor(name: string, declared: string | undefined, kind: FileKind): string {
  if (declared) return declared
  if (kind === 'pdf') return 'application/pdf'
  if (kind === 'image') return IMAGE_TYPES[extensionOf(name)] ?? 'application/octet-stream'
  return extensionOf(name) === 'md' ? 'text/markdown' : 'text/plain'
}
