import { readdir, readFile, stat } from 'node:fs/promises'
import { homedir } from 'node:os'
import { basename, join, relative, resolve, sep } from 'node:path'

/**
 * GGUF models already on disk, used where they are (never copied): files and folders the user
 * added, the app's own models folder (where the model library downloads to), the models Ollama
 * has pulled and LM Studio's models folder. Discovery reads directories and small manifests
 * only; it never opens a model (see gguf-header.ts for that).
 */
export type ModelSource = 'user' | 'library' | 'ollama' | 'lmstudio'

export interface DiscoveredModel {
  /** What `builtin/<id>` names: unique across sources. */
  id: string
  /** For people: Ollama's name:tag, else the file name without `.gguf`. */
  name: string
  source: ModelSource
  /** The GGUF to load (the first part of a split model). */
  path: string
  /** Bytes on disk, all parts of a split model together. */
  sizeBytes: number
  /** Ollama's template layer (Go template text), kept for reference: the engine uses the GGUF's own. */
  ollamaTemplate?: string
  /** Ollama's params layer (stop words, temperature, num_ctx…). */
  ollamaParams?: Record<string, unknown>
  /** Ollama's system-prompt layer. */
  ollamaSystem?: string
  /** A vision projector beside the model: the built-in engine reads text only. */
  projectorPath?: string
}

export interface DiscoveryProblem {
  source: ModelSource
  /** The model it concerns, when known (an Ollama name:tag). */
  name?: string
  path: string
  message: string
}

export interface DiscoveryResult {
  models: DiscoveredModel[]
  problems: DiscoveryProblem[]
}

export interface DiscoveryOptions {
  /** The app's data folder; models live in <dataDir>/models. */
  dataDir?: string
  /** .gguf files and folders the user added. */
  userPaths?: readonly string[]
  /** Defaults to the user's home folder; tests point it at a temporary one. */
  home?: string
  /** Ollama's models folder: $OLLAMA_MODELS, else ~/.ollama/models. */
  ollamaModelsDir?: string
  /** LM Studio's models folders: ~/.lmstudio/models and ~/.cache/lm-studio/models. */
  lmStudioDirs?: readonly string[]
  env?: NodeJS.ProcessEnv
}

export const OLLAMA_MODEL_MEDIA_TYPE = 'application/vnd.ollama.image.model'
const OLLAMA_TEMPLATE = 'application/vnd.ollama.image.template'
const OLLAMA_PARAMS = 'application/vnd.ollama.image.params'
const OLLAMA_SYSTEM = 'application/vnd.ollama.image.system'
const OLLAMA_PROJECTOR = 'application/vnd.ollama.image.projector'
const OLLAMA_DEFAULT_REGISTRY = 'registry.ollama.ai'

/** Folders nested deeper than this are not walked (a user pointing at `/` must not hang the app). */
const MAX_DEPTH = 6
/** Nor more entries than this per walk. */
const MAX_ENTRIES = 20_000

const SPLIT_PART = /-(\d{5})-of-(\d{5})\.gguf$/i
const isProjectorFile = (name: string): boolean => /mmproj/i.test(name)

interface GgufFileFound {
  path: string
  size: number
}

async function walkGguf(root: string): Promise<GgufFileFound[]> {
  const found: GgufFileFound[] = []
  let seen = 0
  const visit = async (dir: string, depth: number): Promise<void> => {
    if (depth > MAX_DEPTH || seen > MAX_ENTRIES) return
    let entries
    try {
      entries = await readdir(dir, { withFileTypes: true })
    } catch {
      return
    }
    entries.sort((a, b) => a.name.localeCompare(b.name))
    for (const entry of entries) {
      if (++seen > MAX_ENTRIES) return
      const full = join(dir, entry.name)
      if (entry.isDirectory()) {
        if (!entry.name.startsWith('.')) await visit(full, depth + 1)
      } else if ((entry.isFile() || entry.isSymbolicLink()) && entry.name.toLowerCase().endsWith('.gguf')) {
        try {
          const s = await stat(full)
          if (s.isFile()) found.push({ path: full, size: s.size })
        } catch {
          // a dangling link: nothing to load
        }
      }
    }
  }
  await visit(root, 0)
  return found
}

/**
 * Groups the files of one folder into models: split parts (…-00001-of-00003.gguf) become one model
 * loaded from its first part; vision projectors (mmproj) attach to the models beside them.
 */
function filesToModels(files: GgufFileFound[], source: ModelSource, idOf: (f: GgufFileFound) => string): DiscoveredModel[] {
  const models: DiscoveredModel[] = []
  const byDir = new Map<string, GgufFileFound[]>()
  for (const f of files) {
    const dir = f.path.slice(0, f.path.length - basename(f.path).length)
    byDir.set(dir, [...(byDir.get(dir) ?? []), f])
  }
  for (const group of byDir.values()) {
    const projector = group.find((f) => isProjectorFile(basename(f.path)))
    for (const f of group) {
      const name = basename(f.path)
      if (isProjectorFile(name)) continue
      const split = SPLIT_PART.exec(name)
      let size = f.size
      if (split) {
        if (split[1] !== '00001') continue
        const stem = name.slice(0, split.index)
        size = group.filter((g) => basename(g.path).startsWith(`${stem}-`) && SPLIT_PART.test(basename(g.path))).reduce((a, g) => a + g.size, 0)
      }
      const display = name.replace(split ? SPLIT_PART : /\.gguf$/i, '')
      models.push({ id: idOf(f), name: display, source, path: f.path, sizeBytes: size, ...(projector ? { projectorPath: projector.path } : {}) })
    }
  }
  return models
}

const stripGguf = (p: string): string => p.replace(SPLIT_PART, '').replace(/\.gguf$/i, '')

async function userModels(paths: readonly string[]): Promise<{ models: DiscoveredModel[]; problems: DiscoveryProblem[] }> {
  const models: DiscoveredModel[] = []
  const problems: DiscoveryProblem[] = []
  for (const p of paths) {
    const abs = resolve(p)
    let s
    try {
      s = await stat(abs)
    } catch {
      problems.push({ source: 'user', path: abs, message: 'This file or folder no longer exists (moved or deleted). Remove it from the list or add it again.' })
      continue
    }
    const files = s.isDirectory() ? await walkGguf(abs) : [{ path: abs, size: s.size }]
    models.push(...filesToModels(files, 'user', (f) => stripGguf(basename(f.path))))
  }
  return { models, problems }
}

/** The id a model under `<dataDir>/models` is listed by: its path there, without `.gguf` (and a split model's part suffix). */
export const libraryModelId = (dataDir: string, path: string): string => stripGguf(relative(join(dataDir, 'models'), path).split(sep).join('/'))

async function libraryModels(dataDir: string): Promise<DiscoveredModel[]> {
  const files = await walkGguf(join(dataDir, 'models'))
  return filesToModels(files, 'library', (f) => libraryModelId(dataDir, f.path))
}

async function lmStudioModels(dirs: readonly string[]): Promise<DiscoveredModel[]> {
  const models: DiscoveredModel[] = []
  for (const dir of dirs) models.push(...filesToModels(await walkGguf(dir), 'lmstudio', (f) => stripGguf(basename(f.path))))
  return models
}

interface OllamaManifest {
  layers?: Array<{ mediaType?: string; digest?: string; size?: number }>
}

const blobPath = (modelsDir: string, digest: string): string => join(modelsDir, 'blobs', digest.replace(':', '-'))

/** Ollama's name for a manifest path: library models as name:tag, others as namespace/name:tag. */
function ollamaName(parts: string[]): string {
  const tag = parts.at(-1)!
  const repo = parts.slice(0, -1)
  if (repo[0] === OLLAMA_DEFAULT_REGISTRY) repo.shift()
  if (repo[0] === 'library' && repo.length === 2) repo.shift()
  return `${repo.join('/')}:${tag}`
}

/**
 * Models in an Ollama-layout store: Ollama's own, or the one the model library pulls into
 * (`<dataDir>/models/ollama`, source `library`: the app's files, pulled again from the library).
 */
async function ollamaModels(modelsDir: string, source: 'ollama' | 'library' = 'ollama'): Promise<{ models: DiscoveredModel[]; problems: DiscoveryProblem[] }> {
  const again = (name: string) => (source === 'ollama' ? `run \`ollama pull ${name}\`` : `Pull it again from the model library (ollama:${name})`)
  const models: DiscoveredModel[] = []
  const problems: DiscoveryProblem[] = []
  const manifestsRoot = join(modelsDir, 'manifests')
  const manifests: string[][] = []
  const visit = async (dir: string, parts: string[]): Promise<void> => {
    if (parts.length > 5) return
    let entries
    try {
      entries = await readdir(dir, { withFileTypes: true })
    } catch {
      return
    }
    for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (e.name.startsWith('.')) continue
      if (e.isDirectory()) await visit(join(dir, e.name), [...parts, e.name])
      else if (e.isFile() && parts.length >= 2) manifests.push([...parts, e.name])
    }
  }
  await visit(manifestsRoot, [])
  for (const parts of manifests) {
    const file = join(manifestsRoot, ...parts)
    const name = ollamaName(parts)
    let manifest: OllamaManifest
    try {
      manifest = JSON.parse(await readFile(file, 'utf8')) as OllamaManifest
    } catch {
      problems.push({ source, name, path: file, message: `The manifest for ${name} is not readable JSON: ${again(name)}.` })
      continue
    }
    const layers = Array.isArray(manifest.layers) ? manifest.layers : []
    const modelLayer = layers.find((l) => l.mediaType === OLLAMA_MODEL_MEDIA_TYPE && typeof l.digest === 'string')
    if (!modelLayer?.digest) {
      problems.push({ source, name, path: file, message: `The manifest for ${name} has no model layer (it may be an adapter or a cloud model).` })
      continue
    }
    const path = blobPath(modelsDir, modelLayer.digest)
    let size: number
    try {
      size = (await stat(path)).size
    } catch {
      problems.push({ source, name, path, message: `${name} is listed but its model file is missing (${basename(path)}): ${again(name)} to fetch it again.` })
      continue
    }
    const text = async (mediaType: string): Promise<string | undefined> => {
      const layer = layers.find((l) => l.mediaType === mediaType && typeof l.digest === 'string')
      if (!layer?.digest) return undefined
      try {
        return await readFile(blobPath(modelsDir, layer.digest), 'utf8')
      } catch {
        return undefined
      }
    }
    const model: DiscoveredModel = { id: name, name, source, path, sizeBytes: size }
    const template = await text(OLLAMA_TEMPLATE)
    if (template !== undefined) model.ollamaTemplate = template
    const system = await text(OLLAMA_SYSTEM)
    if (system !== undefined) model.ollamaSystem = system
    const params = await text(OLLAMA_PARAMS)
    if (params !== undefined) {
      try {
        model.ollamaParams = JSON.parse(params) as Record<string, unknown>
      } catch {
        // params that are not JSON are ignored: they only tune defaults
      }
    }
    const projector = layers.find((l) => l.mediaType === OLLAMA_PROJECTOR && typeof l.digest === 'string')
    if (projector?.digest) model.projectorPath = blobPath(modelsDir, projector.digest)
    models.push(model)
  }
  return { models, problems }
}

export function defaultOllamaModelsDir(env: NodeJS.ProcessEnv = process.env, home = homedir()): string {
  return env.OLLAMA_MODELS?.trim() || join(home, '.ollama', 'models')
}

export function defaultLmStudioDirs(home = homedir()): string[] {
  return [join(home, '.lmstudio', 'models'), join(home, '.cache', 'lm-studio', 'models')]
}

/**
 * Every model found, user-added first, then the app's own, Ollama's and LM Studio's. The same file
 * found twice (a user folder that is LM Studio's) is listed once; an id taken by an earlier source
 * is prefixed with its own source (`ollama:…`, `lmstudio:…`).
 */
export async function discoverModels(options: DiscoveryOptions = {}): Promise<DiscoveryResult> {
  const home = options.home ?? homedir()
  const env = options.env ?? process.env
  const none = { models: [], problems: [] }
  const [user, library, libraryOllama, ollama, lmstudio] = await Promise.all([
    userModels(options.userPaths ?? []),
    options.dataDir ? libraryModels(options.dataDir) : Promise.resolve([]),
    // The Ollama models the library pulled without Ollama: the app's own, so one library lists them with its downloads.
    options.dataDir ? ollamaModels(join(options.dataDir, 'models', 'ollama'), 'library') : Promise.resolve(none),
    ollamaModels(options.ollamaModelsDir ?? defaultOllamaModelsDir(env, home)),
    lmStudioModels(options.lmStudioDirs ?? defaultLmStudioDirs(home))
  ])
  const models: DiscoveredModel[] = []
  const paths = new Set<string>()
  const ids = new Set<string>()
  for (const m of [...user.models, ...library, ...libraryOllama.models, ...ollama.models, ...lmstudio]) {
    if (paths.has(m.path)) continue
    paths.add(m.path)
    let id = m.id
    if (ids.has(id)) id = `${m.source}:${m.id}`
    for (let n = 2; ids.has(id); n++) id = `${m.source}:${m.id}~${n}`
    ids.add(id)
    models.push({ ...m, id })
  }
  return { models, problems: [...user.problems, ...libraryOllama.problems, ...ollama.problems] }
}
