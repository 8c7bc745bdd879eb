import { readdir, readFile, rm, rmdir } from 'node:fs/promises'
import { basename, dirname, join, relative, sep } from 'node:path'

interface StoreManifest {
  config?: { digest?: string }
  layers?: Array<{ digest?: string }>
}

/** A manifest's digests; anything else (a hostile `../` digest) is never turned into a path. */
const digestsOf = (m: StoreManifest): string[] =>
  [m.config?.digest, ...(Array.isArray(m.layers) ? m.layers.map((l) => l.digest) : [])].filter((d): d is string => typeof d === 'string' && /^sha256:[a-f0-9]{64}$/.test(d))

const blobName = (digest: string) => digest.replace(':', '-')

async function manifestFiles(root: string): Promise<string[]> {
  const out: string[] = []
  const visit = async (dir: string, depth: number): Promise<void> => {
    if (depth > 5) return
    let entries
    try {
      entries = await readdir(dir, { withFileTypes: true })
    } catch {
      return
    }
    for (const e of entries) {
      if (e.name.startsWith('.')) continue
      if (e.isDirectory()) await visit(join(dir, e.name), depth + 1)
      else if (e.isFile()) out.push(join(dir, e.name))
    }
  }
  await visit(root, 0)
  return out
}

/** The store (`…/blobs/sha256-…` → `…`) a blob path belongs to, or undefined when it is not an Ollama-layout blob. */
export function ollamaStoreOf(blobPath: string): string | undefined {
  return basename(dirname(blobPath)) === 'blobs' && /^sha256-[a-f0-9]{64}$/.test(basename(blobPath)) ? dirname(dirname(blobPath)) : undefined
}

/**
 * Removes a model from an Ollama-layout store as `ollama rm` does: every manifest that names
 * the blob, then the blobs of those manifests (config, model, template, params…) that no
 * remaining manifest uses. Deleting the blob alone would leave a manifest naming a missing
 * file (listed as broken by the engine, by Ollama too). Returns the files removed.
 */
export async function removeOllamaModel(store: string, blobPath: string): Promise<string[]> {
  const target = basename(blobPath)
  const manifestsRoot = join(store, 'manifests')
  const parsed: Array<{ file: string; digests: string[] }> = []
  for (const file of await manifestFiles(manifestsRoot)) {
    try {
      parsed.push({ file, digests: digestsOf(JSON.parse(await readFile(file, 'utf8')) as StoreManifest) })
    } catch {
      // An unreadable manifest is not ours to judge: it is neither removed nor counted as using a blob.
    }
  }
  const removing = parsed.filter((m) => m.digests.some((d) => blobName(d) === target))
  const keeping = parsed.filter((m) => !removing.includes(m))
  const stillUsed = new Set(keeping.flatMap((m) => m.digests.map(blobName)))
  const removed: string[] = []
  for (const m of removing) {
    await rm(m.file, { force: true })
    removed.push(m.file)
    // Empty name folders go too (as Ollama leaves none behind), never the manifests root itself.
    for (let dir = dirname(m.file); relative(manifestsRoot, dir) && !relative(manifestsRoot, dir).startsWith('..') && !relative(manifestsRoot, dir).startsWith(sep); dir = dirname(dir)) {
      if (!(await rmdir(dir).then(() => true, () => false))) break
    }
  }
  const blobs = new Set([target, ...removing.flatMap((m) => m.digests.map(blobName))])
  for (const name of blobs) {
    if (stillUsed.has(name)) continue
    const path = join(store, 'blobs', name)
    await rm(path, { force: true })
    removed.push(path)
  }
  return removed
}
