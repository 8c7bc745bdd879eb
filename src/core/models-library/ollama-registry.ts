import type { LibraryEntry } from '../../shared/models-library/types'
import { DownloadError } from './file-download'
import type { DownloadPlan } from './download-service'
import { hubName, parseHubJson, readFromHub, type HubAnswer } from './hub-read'
import { pathInside } from './safe-path'

export const OLLAMA_REGISTRY = 'https://registry.ollama.ai'
export const MODEL_LAYER = 'application/vnd.ollama.image.model'
const MANIFEST_ACCEPT = 'application/vnd.docker.distribution.manifest.v2+json'
/** A manifest lists a handful of layers in well under a kilobyte each. */
const MAX_MANIFEST_BYTES = 1024 * 1024

export interface OllamaManifest {
  schemaVersion: number
  mediaType?: string
  config: { mediaType: string; digest: string; size: number }
  layers: Array<{ mediaType: string; digest: string; size: number }>
}

/** `llama3.2`, `llama3.2:1b`, `namespace/name:tag`: split into the registry path and tag. */
export function parseOllamaName(ref: string): { namespace: string; name: string; tag: string } | undefined {
  const m = /^(?:([a-z0-9][\w.-]*)\/)?([a-z0-9][\w.-]*)(?::([\w][\w.-]{0,127}))?$/i.exec(ref.trim())
  if (!m) return undefined
  return { namespace: m[1] ?? 'library', name: m[2]!, tag: m[3] ?? 'latest' }
}

/**
 * Small, popular models of the Ollama library. The library has no public search API, so
 * search filters this list; any other name is checked against the registry's manifest.
 */
export const KNOWN_OLLAMA_MODELS = [
  'smollm2:135m', 'smollm2:360m', 'smollm2:1.7b', 'qwen2.5:0.5b', 'qwen2.5:1.5b', 'qwen2.5:3b', 'qwen2.5:7b', 'qwen3:0.6b', 'qwen3:1.7b',
  'qwen3:4b', 'qwen3:8b', 'llama3.2:1b', 'llama3.2:3b', 'llama3.1:8b', 'gemma3:1b', 'gemma3:4b', 'phi4-mini', 'mistral:7b',
  'tinyllama', 'nomic-embed-text', 'all-minilm'
]

/**
 * The Ollama registry's distribution API, read directly: the manifest of a name and tag,
 * then each layer by digest (redirected to a CDN, Range honoured). Saved in Ollama's own
 * layout (`blobs/sha256-<hex>`, `manifests/<host>/<namespace>/<name>/<tag>`) under the
 * built-in engine's store, so its model discovery reads it like Ollama's.
 */
export class OllamaRegistry {
  constructor(private readonly options: { registry?: string; fetch?: typeof fetch } = {}) {}

  get base(): string {
    return (this.options.registry || OLLAMA_REGISTRY).replace(/\/+$/, '')
  }

  async manifest(namespace: string, name: string, tag: string): Promise<{ manifest: OllamaManifest; text: string }> {
    const doFetch = this.options.fetch ?? fetch
    const source = hubName(this.base, 'the Ollama registry')
    const what = `the manifest of ${name}:${tag}`
    let answer: HubAnswer
    try {
      answer = await readFromHub(doFetch, `${this.base}/v2/${namespace}/${name}/manifests/${tag}`, { headers: { Accept: MANIFEST_ACCEPT } }, { source, what, maxBytes: MAX_MANIFEST_BYTES, totalMs: 60_000 })
    } catch (error) {
      if (error instanceof DownloadError) throw error
      throw new DownloadError(`Could not reach the Ollama registry (${(error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message}).`, 'network')
    }
    if (answer.status === 404) throw new DownloadError(`"${name}:${tag}" was not found in the Ollama library — check the name and tag.`, 'notFound', 404)
    if (!answer.ok) throw new DownloadError(`The Ollama registry answered ${answer.status}.`, answer.status >= 500 ? 'network' : 'http', answer.status)
    const text = answer.body.toString('utf8')
    const manifest = parseHubJson(answer, { source, what }) as OllamaManifest
    if (!manifest || typeof manifest !== 'object') throw new DownloadError('The registry sent a manifest that is not an object.', 'http')
    if (!Array.isArray(manifest.layers) || !manifest.config?.digest) throw new DownloadError('The registry sent a manifest without layers.', 'http')
    for (const layer of [manifest.config, ...manifest.layers]) {
      if (!/^sha256:[a-f0-9]{64}$/.test(layer.digest)) throw new DownloadError(`The manifest names a layer with a bad digest (${String(layer.digest).slice(0, 20)}).`, 'http')
    }
    return { manifest, text }
  }

  /** What to fetch for NAME:TAG into `<storeDir>` (Ollama's layout), verified by digest. */
  async plan(ref: string, storeDir: string): Promise<DownloadPlan> {
    const parsed = parseOllamaName(ref)
    if (!parsed) throw new DownloadError(`"${ref}" is not an Ollama model name; use name or name:tag, for example llama3.2:1b.`, 'notFound')
    const { namespace, name, tag } = parsed
    const { manifest, text } = await this.manifest(namespace, name, tag)
    const blob = (digest: string) => pathInside(storeDir, `blobs/${digest.replace(':', '-')}`)
    // Saved under the library's own host whatever address served it (a mirror, a test registry): the name is the library's.
    const host = 'registry.ollama.ai'
    const model = manifest.layers.find((l) => l.mediaType === MODEL_LAYER)
    if (!model) throw new DownloadError(`"${name}:${tag}" has no model layer.`, 'http')
    return {
      ref: `ollama:${namespace === 'library' ? '' : `${namespace}/`}${name}:${tag}`,
      source: { kind: 'ollama', name: namespace === 'library' ? name : `${namespace}/${name}`, tag },
      files: [manifest.config, ...manifest.layers].map((l) => ({
        url: `${this.base}/v2/${namespace}/${name}/blobs/${l.digest}`,
        dest: blob(l.digest),
        sizeBytes: l.size,
        sha256: l.digest.slice('sha256:'.length)
      })),
      mainPath: blob(model.digest),
      finalize: { path: pathInside(storeDir, `manifests/${host}/${namespace}/${name}/${tag}`), content: text }
    }
  }

  search(query: string): LibraryEntry[] {
    const q = query.trim().toLowerCase()
    return KNOWN_OLLAMA_MODELS.filter((m) => !q || m.includes(q)).map((m) => ({ source: 'ollama', id: m, name: m }))
  }
}
