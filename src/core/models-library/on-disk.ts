import { readdir, readFile, stat } from 'node:fs/promises'
import { homedir } from 'node:os'
import { join, relative, sep } from 'node:path'
import type { LibraryEntry } from '../../shared/models-library/types'
import { MODEL_LAYER, type OllamaManifest } from './ollama-registry'
import { splitPart } from './gguf-files'

export interface ModelFolders {
  /** The built-in engine's store (`<dataDir>/models`). */
  own: string
  /** Ollama's store, read in place. */
  ollama?: string
  /** LM Studio's models folder, read in place. */
  lmstudio?: string[]
}

export function defaultModelFolders(modelsDir: string, env: NodeJS.ProcessEnv = process.env): ModelFolders {
  const home = homedir()
  return {
    own: modelsDir,
    ollama: env['OLLAMA_MODELS'] || join(home, '.ollama', 'models'),
    lmstudio: [join(home, '.lmstudio', 'models'), join(home, '.cache', 'lm-studio', 'models')]
  }
}

/**
 * The models already on this machine, each where it is: our own downloads, the models
 * Ollama pulled (its manifests name the GGUF blob) and LM Studio's GGUF files. Nothing is
 * copied; `owner` says whose file it is, so deleting one of another app's is never silent.
 */
export async function modelsOnDisk(folders: ModelFolders): Promise<LibraryEntry[]> {
  const out: LibraryEntry[] = []
  out.push(...(await ggufFiles(join(folders.own, 'hf'), 'switchboard')))
  out.push(...(await ollamaStore(join(folders.own, 'ollama'), 'switchboard')))
  if (folders.ollama) out.push(...(await ollamaStore(folders.ollama, 'ollama')))
  for (const dir of folders.lmstudio ?? []) out.push(...(await ggufFiles(dir, 'lmstudio')))
  return out
}

async function ggufFiles(root: string, owner: LibraryEntry['owner']): Promise<LibraryEntry[]> {
  const out: LibraryEntry[] = []
  const walk = async (dir: string, depth: number): Promise<void> => {
    if (depth > 6) return
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => [])
    for (const e of entries) {
      const path = join(dir, e.name)
      if (e.isDirectory()) await walk(path, depth + 1)
      else if (e.isFile() && /\.gguf$/i.test(e.name) && !/^mmproj/i.test(e.name)) {
        const part = splitPart(e.name)
        if (part && part.index !== 1) continue
        const size = (await stat(path).catch(() => undefined))?.size ?? 0
        const name = relative(root, path).split(sep).join('/')
        out.push({ source: 'disk', id: `${owner}:${name}`, name, path, owner, sizeBytes: size })
      }
    }
  }
  await walk(root, 0)
  return out
}

async function ollamaStore(root: string, owner: LibraryEntry['owner']): Promise<LibraryEntry[]> {
  const out: LibraryEntry[] = []
  const manifests = join(root, 'manifests')
  const walk = async (dir: string, depth: number): Promise<void> => {
    if (depth > 5) return
    for (const e of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      const path = join(dir, e.name)
      if (e.isDirectory()) {
        await walk(path, depth + 1)
        continue
      }
      try {
        const manifest = JSON.parse(await readFile(path, 'utf8')) as OllamaManifest
        const layer = manifest.layers?.find((l) => l.mediaType === MODEL_LAYER)
        if (!layer) continue
        const blob = join(root, 'blobs', layer.digest.replace(':', '-'))
        const size = (await stat(blob).catch(() => undefined))?.size
        // A manifest whose blob is missing is not a model that can load.
        if (size === undefined) continue
        const parts = relative(manifests, path).split(sep)
        const tag = parts.pop()!
        const name = parts.slice(1).filter((p, i) => !(i === 0 && p === 'library')).join('/')
        out.push({ source: 'disk', id: `${owner}:ollama:${name}:${tag}`, name: `${name}:${tag}`, path: blob, owner, sizeBytes: size })
      } catch {
        // Not a manifest (a stray file in the store): skipped.
      }
    }
  }
  await walk(manifests, 0)
  return out
}
