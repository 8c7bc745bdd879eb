import { freemem } from 'node:os'
import { join } from 'node:path'
import { readFile, rm, writeFile, mkdir } from 'node:fs/promises'
import type { DownloadSnapshot, LibraryEntry, LibraryFile, RecommendedList, RepoDetails } from '../../shared/models-library/types'
import { DownloadError } from './file-download'
import { DownloadService, type DownloadPlan } from './download-service'
import { contextPlan, estimateMemory, FALLBACK_CONTEXT, recommendQuant, type MemoryAvailable } from '../gguf/fit-estimate'
import { groupGgufFiles, quantOf, type RepoFile } from './gguf-files'
import { hubName, readFromHub } from './hub-read'
import { GgufRemoteError, modelShape, readGgufRemote, type ModelShape } from '../gguf/gguf-header'
import { HfHub, isRepoId } from './hf-hub'
import { defaultModelFolders, modelsOnDisk, type ModelFolders } from './on-disk'
import { OllamaRegistry } from './ollama-registry'
import { ollamaStoreOf, removeOllamaModel } from './ollama-store'
import { checkProxyAddress, proxyFetch } from './proxy-fetch'
import { pathInside } from './safe-path'
import { recommendedModels } from './recommended'

export interface LibrarySettings {
  /** A mirror of the Hugging Face hub (same API); empty for huggingface.co. */
  hubEndpoint?: string
  /** An HTTP(S) proxy for hub search, headers and downloads; empty for HTTPS_PROXY / HTTP_PROXY or none. */
  proxy?: string
  /** The Ollama registry (or a mirror of it) for `ollama:` downloads; empty for registry.ollama.ai. */
  ollamaRegistry?: string
}

export interface LibraryOptions {
  dataDir: string
  /** A hub address for this run only (the CLI's --hub / HF_ENDPOINT), over the saved setting. */
  hubEndpoint?: string
  /** A proxy for this run only (the CLI's --proxy), over the saved setting. */
  proxy?: string
  /** Where HTTPS_PROXY / HTTP_PROXY / NO_PROXY are read (process.env by default). */
  env?: NodeJS.ProcessEnv
  /** Replaces the proxy-aware fetch (tests' fault injection). */
  fetch?: typeof fetch
  /** The Hugging Face token (keychain in the app, HF_TOKEN in the CLI). */
  hfToken?: () => Promise<string | undefined>
  /** Free memory; the engine adds free VRAM where it reports a GPU. */
  memory?: () => Promise<MemoryAvailable> | MemoryAvailable
  folders?: ModelFolders
  ollamaRegistry?: string
  throttleMs?: number
  heartbeatMs?: number
  retryDelayMs?: number
  diskSpace?: (path: string) => Promise<number | undefined>
}

/** `hf:owner/repo[:QUANT|:file.gguf]` or `ollama:name[:tag]`. */
export type ModelRef = { kind: 'hf'; repo: string; pick?: string } | { kind: 'ollama'; name: string }

export function parseModelRef(ref: string): ModelRef | undefined {
  const m = /^(hf|ollama):(.+)$/.exec(ref.trim())
  if (!m) return undefined
  if (m[1] === 'ollama') return { kind: 'ollama', name: m[2]! }
  const [repo, pick] = m[2]!.split(/:(.*)/s, 2) as [string, string | undefined]
  if (!isRepoId(repo)) return undefined
  return pick ? { kind: 'hf', repo, pick } : { kind: 'hf', repo }
}

/**
 * The model library: one search over Hugging Face GGUF repositories, the Ollama library
 * and the models already on disk; a repository's quantisations with a memory fit read from
 * the remote header; downloads into `<dataDir>/models` that resume and verify.
 */
export class ModelsLibrary {
  readonly modelsDir: string
  readonly downloads: DownloadService
  readonly registry: OllamaRegistry
  private settingsCache?: LibrarySettings
  private readonly shapes = new Map<string, ModelShape>()

  constructor(private readonly options: LibraryOptions) {
    this.modelsDir = join(options.dataDir, 'models')
    this.registry = new OllamaRegistry({ registry: options.ollamaRegistry, fetch: this.fetch })
    this.downloads = new DownloadService({
      modelsDir: this.modelsDir,
      fetch: this.fetch,
      throttleMs: options.throttleMs,
      heartbeatMs: options.heartbeatMs,
      retryDelayMs: options.retryDelayMs,
      diskSpace: options.diskSpace,
      authHeaders: async () => this.hub(await this.settings()).headers()
    })
  }

  private hub(settings: LibrarySettings): HfHub {
    return new HfHub({ endpoint: this.options.hubEndpoint || settings.hubEndpoint, token: this.options.hfToken, fetch: this.fetch })
  }

  /** Every request of the library: through the proxy in effect at the time of the request. */
  private readonly fetch: typeof fetch = async (input, init) => {
    if (this.options.fetch) return this.options.fetch(input, init)
    const settings = await this.settings()
    return proxyFetch(this.options.proxy || settings.proxy, this.options.env)(input, init)
  }

  async settings(): Promise<LibrarySettings> {
    if (this.settingsCache) return this.settingsCache
    try {
      this.settingsCache = JSON.parse(await readFile(join(this.options.dataDir, 'models-library.json'), 'utf8')) as LibrarySettings
    } catch {
      // No settings yet: the defaults.
      this.settingsCache = {}
    }
    return this.settingsCache
  }

  async setSettings(next: LibrarySettings): Promise<LibrarySettings> {
    const endpoint = next.hubEndpoint?.trim()
    if (endpoint) httpAddress(endpoint, 'The hub mirror')
    const proxy = next.proxy?.trim()
    const registry = next.ollamaRegistry?.trim()
    if (registry) httpAddress(registry, 'The Ollama registry')
    const settings: LibrarySettings = {
      ...(endpoint ? { hubEndpoint: endpoint.replace(/\/+$/, '') } : {}),
      ...(registry ? { ollamaRegistry: registry.replace(/\/+$/, '') } : {}),
      ...(proxy ? { proxy: checked(() => checkProxyAddress(proxy)) } : {})
    }
    // In effect at once: a search sent right after the save must already use the new address.
    this.settingsCache = settings
    await mkdir(this.options.dataDir, { recursive: true })
    await writeFile(join(this.options.dataDir, 'models-library.json'), JSON.stringify(settings))
    return settings
  }

  async memory(): Promise<MemoryAvailable> {
    return (await this.options.memory?.()) ?? { freeRamBytes: freemem() }
  }

  private folders(): ModelFolders {
    return this.options.folders ?? defaultModelFolders(this.options.dataDir)
  }

  /** Hugging Face, the Ollama library and the disk in one list; a source that fails is reported, the others still answer. */
  async search(query: string, sources: Array<'hf' | 'ollama' | 'disk'> = ['hf', 'ollama', 'disk']): Promise<{ entries: LibraryEntry[]; errors: Array<{ source: string; message: string }> }> {
    const q = query.trim().toLowerCase()
    const errors: Array<{ source: string; message: string }> = []
    const settle = async (source: string, run: () => Promise<LibraryEntry[]> | LibraryEntry[]) => {
      try {
        return await run()
      } catch (error) {
        errors.push({ source, message: error instanceof Error ? error.message : String(error) })
        return []
      }
    }
    const [disk, hf, ollama] = await Promise.all([
      sources.includes('disk') ? settle('disk', async () => (await modelsOnDisk(this.folders())).filter((e) => !q || e.name.toLowerCase().includes(q))) : [],
      sources.includes('hf') && q ? settle('hf', async () => this.hub(await this.settings()).search(query)) : [],
      sources.includes('ollama') ? settle('ollama', () => this.registry.search(query)) : []
    ])
    return { entries: [...disk, ...hf, ...ollama], errors }
  }

  /** A repository's GGUF models (split files as one), with the fit of each at the context. */
  async repo(repo: string, contextTokens?: number): Promise<RepoDetails> {
    const hub = this.hub(await this.settings())
    const files = groupGgufFiles(await hub.tree(repo))
    const memory = await this.memory()
    const models = files.filter((f) => !f.projector)
    const details: RepoDetails = { repo, files: [], contextTokens: contextTokens ?? 0, memory }
    let shape: ModelShape | undefined
    const probe = models[0]
    if (probe) {
      try {
        shape = await this.remoteShape(hub, repo, probe.parts[0]!)
        details.shape = {
          architecture: shape.architecture,
          blockCount: shape.blockCount,
          embeddingLength: shape.embeddingLength,
          headCount: shape.headCount,
          headCountKv: shape.headCountKv,
          contextLength: shape.contextLength
        }
      } catch (error) {
        details.headerError = error instanceof Error ? error.message : String(error)
      }
    }
    // One context for the whole table: the default the smallest file would load with here.
    const smallest = [...models].sort((a, b) => a.sizeBytes - b.sizeBytes)[0]
    const ctx = contextTokens ?? (shape && smallest ? contextPlan(shape, smallest.sizeBytes, memory).total : FALLBACK_CONTEXT)
    details.contextTokens = ctx
    const recommended = shape ? recommendQuant(models, shape, ctx, memory) : undefined
    details.files = files.map((f) => {
      const file: LibraryFile = { path: f.path, sizeBytes: f.sizeBytes, parts: f.parts.length, projector: f.projector }
      if (f.quant) file.quant = f.quant
      if (f.parts[0]?.sha256) file.sha256 = f.parts[0].sha256
      if (shape && !f.projector) file.fit = estimateMemory(shape, f.sizeBytes, ctx, memory)
      if (recommended === f) file.recommended = true
      return file
    })
    return details
  }

  /**
   * The shape from a hub file's header, read once per file version (its LFS sha256 and size):
   * a header takes a few MB of Range reads (a 128k-token vocabulary), not worth repeating on
   * every view of the repository. Each request is bounded in size and in silence.
   */
  private async remoteShape(hub: HfHub, repo: string, file: RepoFile): Promise<ModelShape> {
    const url = hub.fileUrl(repo, file.path)
    const key = `${url} ${file.sizeBytes} ${file.sha256 ?? ''}`
    const cached = this.shapes.get(key)
    if (cached) return cached
    const headers = await hub.headers()
    const source = hubName(hub.endpoint)
    const shape = modelShape(
      await readGgufRemote(url, {
        readRange: async (start, end) => {
          const answer = await readFromHub(this.fetch, url, { headers: { ...headers, Range: `bytes=${start}-${end}` }, redirect: 'follow' }, { source, what: `the header of ${file.path}`, maxBytes: end + 1, cut: true })
          if (!answer.ok) throw new GgufRemoteError(answer.status, url)
          // A 200 is the whole file from byte 0: skip what was already read.
          return answer.status === 206 ? answer.body.subarray(0, end - start + 1) : answer.body.subarray(start)
        }
      })
    )
    // A file's header with a known sha256 never changes; without one (not in LFS) it is kept for this run only, like the rest.
    this.shapes.set(key, shape)
    if (this.shapes.size > 64) this.shapes.delete(this.shapes.keys().next().value!)
    return shape
  }

  /**
   * Resolves `hf:…` / `ollama:…` into a download and starts it. A model that does not fit
   * in memory is refused with the figures unless `force` ("download anyway").
   */
  async pull(ref: string, options: { force?: boolean; contextTokens?: number } = {}): Promise<{ snapshot: DownloadSnapshot; details?: RepoDetails; file?: LibraryFile }> {
    const parsed = parseModelRef(ref)
    if (!parsed) throw new DownloadError(`"${ref}" is not a model reference: use hf:owner/repo[:QUANT] or ollama:name[:tag].`, 'notFound')
    if (parsed.kind === 'ollama') {
      // The address in effect now: this run's (--registry), else the setting, else the library's own.
      const registry = new OllamaRegistry({ registry: this.options.ollamaRegistry || (await this.settings()).ollamaRegistry, fetch: this.fetch })
      const plan = await registry.plan(parsed.name, join(this.modelsDir, 'ollama'))
      return { snapshot: await this.downloads.start(plan) }
    }
    const details = await this.repo(parsed.repo, options.contextTokens)
    const candidates = details.files.filter((f) => !f.projector)
    if (candidates.length === 0) throw new DownloadError(`${parsed.repo} has no GGUF model file.`, 'notFound')
    const pick = parsed.pick
    const file = pick
      ? candidates.find((f) => f.path === pick || f.path.split('/').pop() === pick) ?? candidates.find((f) => f.quant === pick.toUpperCase() || quantOf(f.path) === pick.toUpperCase())
      : candidates.find((f) => f.recommended) ?? candidates.find((f) => f.quant === 'Q4_K_M') ?? candidates[0]
    if (!file) {
      const quants = candidates.map((f) => f.quant ?? f.path).join(', ')
      throw new DownloadError(`${parsed.repo} has no ${pick} file; it has ${quants}.`, 'notFound')
    }
    if (file.fit?.verdict === 'doesNotFit' && !options.force) {
      throw new DownloadError(
        `${file.path} needs about ${gb(file.fit.totalBytes)} of memory at ${file.fit.contextTokens} tokens of context and ${gb(file.fit.availableBytes)} is free: it does not fit. Pick a smaller quantisation, or download anyway (--force).`,
        'http'
      )
    }
    const tree = groupGgufFiles(await this.hub(await this.settings()).tree(parsed.repo)).find((g) => g.path === file.path)!
    const hub = this.hub(await this.settings())
    const dir = pathInside(this.modelsDir, `hf/${parsed.repo}`)
    const plan: DownloadPlan = {
      ref: `hf:${parsed.repo}:${file.path}`,
      source: { kind: 'hf', repo: parsed.repo, file: file.path },
      // Each name from the hub stays inside the repository's folder, or the pull is refused before a byte moves.
      files: tree.parts.map((p) => ({ url: hub.fileUrl(parsed.repo, p.path), dest: pathInside(dir, p.path), sizeBytes: p.sizeBytes, ...(p.sha256 ? { sha256: p.sha256 } : {}) })),
      mainPath: pathInside(dir, file.path),
      auth: 'hf'
    }
    return { snapshot: await this.downloads.start(plan), details, file }
  }

  /** The curated small models for a first offline chat, with this machine's fit and whether each is downloaded. */
  async recommended(): Promise<RecommendedList> {
    return recommendedModels(this.options.dataDir, await this.memory())
  }

  async onDisk(): Promise<LibraryEntry[]> {
    return modelsOnDisk(this.folders())
  }

  /**
   * Deletes a model (an Ollama-layout one with its manifest). Only our own downloads go silently; a file of Ollama or LM Studio
   * is refused unless `confirmOtherApp`, since deleting it removes it from that app too.
   */
  async remove(path: string, options: { confirmOtherApp?: boolean } = {}): Promise<{ deleted: string; owner: LibraryEntry['owner'] }> {
    const entry = (await this.onDisk()).find((e) => e.path === path)
    if (!entry) throw new DownloadError(`No model on disk is at ${path}.`, 'notFound')
    if (entry.owner !== 'switchboard' && !options.confirmOtherApp) {
      const app = entry.owner === 'ollama' ? 'Ollama' : entry.owner === 'lmstudio' ? 'LM Studio' : 'another app'
      throw new DownloadError(`${entry.name} belongs to ${app}: deleting it here removes it from ${app} too. Confirm to delete it anyway, or remove it in ${app}.`, 'http')
    }
    // A model in an Ollama-layout store (ours or Ollama's) goes with its manifest and the blobs nothing else uses.
    const store = ollamaStoreOf(path)
    if (store) await removeOllamaModel(store, path)
    else await rm(path, { force: true })
    return { deleted: path, owner: entry.owner }
  }

  close(): Promise<void> {
    return this.downloads.close()
  }
}

const gb = (bytes: number) => `${(bytes / 1e9).toFixed(1)} GB`

function httpAddress(address: string, what: string): void {
  let url: URL | undefined
  try {
    url = new URL(address)
  } catch {
    // Reported below with the form wanted.
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || !url.hostname) throw new DownloadError(`${what} must be an http(s) address, such as https://host or http://host:port.`, 'http')
}

function checked<T>(work: () => T): T {
  try {
    return work()
  } catch (error) {
    throw new DownloadError(error instanceof Error ? error.message : String(error), 'http')
  }
}
