import { opendir } from 'node:fs/promises'
import { join, relative, sep } from 'node:path'

/** A glob as a regular expression: `**` any path, `*` within one name, `?` one character. */
export function globToRegExp(glob: string): RegExp {
  let re = ''
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!
    if (c === '*' && glob[i + 1] === '*') {
      re += '.*'
      i++
      if (glob[i + 1] === '/') i++
    } else if (c === '*') re += '[^/]*'
    else if (c === '?') re += '[^/]'
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&')
  }
  return new RegExp(`^${re}$`, 'i')
}

/** A pattern without a slash matches the file's name anywhere; with one, the path from the folder. */
function matches(patterns: readonly RegExp[], sources: readonly string[], rel: string, name: string): boolean {
  return patterns.some((re, i) => re.test(sources[i]!.includes('/') ? rel : name))
}

export const DEFAULT_EXCLUDE = ['node_modules', '.git', '.*']

/**
 * Files under a folder, recursively, in a stable order, streamed (a folder of 100,000 files is
 * not held in memory twice). Hidden entries and node_modules are skipped unless included.
 */
export async function* walkFolder(root: string, options: { include?: readonly string[]; exclude?: readonly string[] } = {}): AsyncGenerator<string> {
  const include = (options.include ?? []).filter(Boolean)
  const exclude = [...DEFAULT_EXCLUDE, ...(options.exclude ?? [])].filter(Boolean)
  const inc = include.map(globToRegExp)
  const exc = exclude.map(globToRegExp)
  async function* walk(dir: string): AsyncGenerator<string> {
    const entries: { name: string; dir: boolean; file: boolean }[] = []
    for await (const entry of await opendir(dir)) entries.push({ name: entry.name, dir: entry.isDirectory(), file: entry.isFile() })
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    for (const entry of entries) {
      const full = join(dir, entry.name)
      const rel = relative(root, full).split(sep).join('/')
      if (matches(exc, exclude, rel, entry.name)) continue
      if (entry.dir) yield* walk(full)
      else if (entry.file && (inc.length === 0 || matches(inc, include, rel, entry.name))) yield full
    }
  }
  yield* walk(root)
}
