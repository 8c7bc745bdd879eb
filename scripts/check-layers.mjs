#!/usr/bin/env node
// The folders of src/core as layers: computes the folder graph from the import lines (type
// imports too, as madge counts them), prints its strongly connected groups and every arrow that
// points up the declared order, and fails on an upward arrow that docs/architecture.md does not
// name with its reason ("Core layers"). tests/unit/shell/core-layers.test.ts runs it under `npm test`.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..')
// `--core DIR --doc FILE` check another tree (the test gives one with an arrow the doc does not name).
const arg = (name, fallback) => {
  const at = process.argv.indexOf(name)
  return at > 0 && process.argv[at + 1] ? resolve(process.argv[at + 1]) : fallback
}
const core = arg('--core', join(repo, 'src', 'core'))
const docFile = arg('--doc', join(repo, 'docs', 'architecture.md'))

/**
 * The layers of src/core, lowest first. A folder may import its own layer and those below; an
 * import of a higher layer is an upward arrow. A file at the top of src/core is a node of its own.
 */
export const LAYERS = [
  ['version.ts', 'unavailable.ts', 'log', 'gguf', 'files', 'security', 'progress'],
  ['bridge', 'feature.ts'],
  ['secrets', 'store', 'services'],
  ['engine'],
  ['runtime'],
  ['providers', 'models-library', 'local'],
  ['caller', 'embeddings', 'attachments', 'speech', 'images'],
  ['tools'],
  ['knowledge'],
  ['chat'],
  ['data'],
  ['gateway', 'sync'],
  ['services-access.ts', 'root.ts', 'context.ts', 'index.ts']
]

const IMPORT = /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|(?:^|[\s;])import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/gm

function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return files(path)
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : []
  })
}

/** The node a file of src/core belongs to: its top folder, or the file itself at the top. */
function nodeOf(file) {
  return relative(core, file).split(sep)[0]
}

function resolveImport(from, spec) {
  if (!spec.startsWith('.')) return undefined
  const base = resolve(dirname(from), spec)
  const rel = relative(core, base)
  if (rel.startsWith('..')) return undefined
  return rel === '' ? join(core, 'index.ts') : base
}

/** The node an import names: a folder (`../chat`, `../chat/x`) or a top file (`../root`). */
function nodeOfImport(target) {
  const parts = relative(core, target).split(sep)
  if (parts.length > 1) return parts[0]
  const isFolder = (() => {
    try {
      return statSync(target).isDirectory()
    } catch {
      return false
    }
  })()
  return isFolder ? parts[0] : parts[0].replace(/(\.js|\.ts)?$/, '.ts')
}

/** Folder → the folders it imports (with one file of each arrow, for the report). */
export function folderGraph() {
  const graph = new Map()
  for (const file of files(core)) {
    const from = nodeOf(file)
    if (!graph.has(from)) graph.set(from, new Map())
    const text = readFileSync(file, 'utf8')
    for (const match of text.matchAll(IMPORT)) {
      const target = resolveImport(file, match[1] ?? match[2] ?? match[3])
      if (!target) continue
      const to = nodeOfImport(target)
      if (to === from) continue
      const arrows = graph.get(from)
      if (!arrows.has(to)) arrows.set(to, relative(core, file))
    }
  }
  return graph
}

/** Tarjan's strongly connected components with more than one node. */
export function stronglyConnected(graph) {
  let index = 0
  const stack = []
  const on = new Set()
  const idx = new Map()
  const low = new Map()
  const groups = []
  const visit = (v) => {
    idx.set(v, index)
    low.set(v, index++)
    stack.push(v)
    on.add(v)
    for (const w of graph.get(v)?.keys() ?? []) {
      if (!idx.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v), low.get(w)))
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)))
    }
    if (low.get(v) === idx.get(v)) {
      const group = []
      let w
      do {
        w = stack.pop()
        on.delete(w)
        group.push(w)
      } while (w !== v)
      if (group.length > 1) groups.push(group.sort())
    }
  }
  for (const v of graph.keys()) if (!idx.has(v)) visit(v)
  return groups
}

export function layerOf(node) {
  const layer = LAYERS.findIndex((names) => names.includes(node))
  return layer
}

/** Every arrow from a lower layer to a higher one, and every node no layer names. */
export function upwardArrows(graph) {
  const up = []
  const unplaced = new Set()
  for (const [from, arrows] of graph) {
    if (layerOf(from) < 0) unplaced.add(from)
    for (const [to, file] of arrows) {
      if (layerOf(to) < 0) unplaced.add(to)
      if (layerOf(from) >= 0 && layerOf(to) > layerOf(from)) up.push({ from, to, file })
    }
  }
  return { up: up.sort((a, b) => `${a.from}>${a.to}`.localeCompare(`${b.from}>${b.to}`)), unplaced: [...unplaced].sort() }
}

/** The upward arrows docs/architecture.md names ("- `from → to`: reason" under "Core layers"). */
export function namedArrows(doc = readFileSync(docFile, 'utf8')) {
  const start = doc.indexOf('### Core layers')
  if (start < 0) return []
  const end = doc.indexOf('\n#', start + 1)
  const section = doc.slice(start, end < 0 ? undefined : end)
  return [...section.matchAll(/^- `([\w.-]+) → ([\w.-]+)`/gm)].map((m) => `${m[1]} → ${m[2]}`)
}

export function check() {
  const graph = folderGraph()
  const arrows = [...graph.values()].reduce((n, a) => n + a.size, 0)
  const groups = stronglyConnected(graph)
  const { up, unplaced } = upwardArrows(graph)
  const named = new Set(namedArrows())
  const found = new Set(up.map((a) => `${a.from} → ${a.to}`))
  // Without the named arrows no group may stay: a cycle inside one layer is refused too.
  const withoutNamed = new Map([...graph].map(([from, to]) => [from, new Map([...to].filter(([t]) => !named.has(`${from} → ${t}`)))]))
  return {
    nodes: graph.size,
    arrows,
    groups,
    up,
    unplaced,
    unnamed: up.filter((a) => !named.has(`${a.from} → ${a.to}`)),
    stale: [...named].filter((a) => !found.has(a)),
    unexplainedGroups: stronglyConnected(withoutNamed)
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const result = check()
  console.log(`src/core: ${result.nodes} folders and top files, ${result.arrows} folder arrows, ${result.up.length} upward`)
  for (const group of result.groups) console.log(`strongly connected (${group.length}): ${group.join(' ')}`)
  for (const a of result.up) console.log(`up: ${a.from} → ${a.to}  (src/core/${a.file})${result.unnamed.includes(a) ? '  NOT NAMED in docs/architecture.md' : ''}`)
  for (const node of result.unplaced) console.log(`no layer names ${node} (scripts/check-layers.mjs LAYERS)`)
  for (const a of result.stale) console.log(`named in docs/architecture.md but no longer an arrow: ${a}`)
  for (const group of result.unexplainedGroups) console.log(`a cycle no named arrow explains: ${group.join(' ')}`)
  if (result.unnamed.length || result.unplaced.length || result.stale.length || result.unexplainedGroups.length) process.exit(1)
}
