import type { LibraryEntry } from '../../shared/models-library/types'
import { DownloadError, HF_TOKEN_HINT } from './file-download'
import type { RepoFile } from './gguf-files'
import { hubName, MAX_LIST_BYTES, parseHubJson, readFromHub, type HubAnswer } from './hub-read'

export const HF_DEFAULT_ENDPOINT = 'https://huggingface.co'

export interface HubOptions {
  /** The hub or a mirror of it (same API; many users reach Hugging Face through one). */
  endpoint?: string
  token?: () => Promise<string | undefined>
  fetch?: typeof fetch
}

interface ApiModel {
  id: string
  downloads?: number
  likes?: number
  lastModified?: string
  gated?: false | 'auto' | 'manual'
  private?: boolean
  tags?: string[]
}

interface TreeEntry {
  type: 'file' | 'directory'
  path: string
  size: number
  oid?: string
  lfs?: { oid: string; size: number; pointerSize?: number }
}

const REPO = /^[\w.-]+\/[\w.-]+$/

export const isRepoId = (repo: string) => REPO.test(repo) && !repo.includes('..')

/**
 * The Hugging Face Hub's public API, the parts a model library needs: model search
 * (`/api/models?search=…&filter=gguf`), a repository's files with their LFS sha256 and size
 * (`/api/models/{repo}/tree/main`), and the download address of a file (`/{repo}/resolve/main/{file}`,
 * which redirects to a CDN and honours Range).
 */
export class HfHub {
  constructor(private readonly options: HubOptions = {}) {}

  get endpoint(): string {
    return (this.options.endpoint || HF_DEFAULT_ENDPOINT).replace(/\/+$/, '')
  }

  async headers(): Promise<Record<string, string>> {
    const token = await this.options.token?.()
    return token ? { Authorization: `Bearer ${token}` } : {}
  }

  async search(query: string, limit = 20): Promise<LibraryEntry[]> {
    const params = new URLSearchParams({ search: query, filter: 'gguf', sort: 'downloads', direction: '-1', limit: String(limit) })
    for (const key of ['downloads', 'likes', 'lastModified', 'gated', 'tags']) params.append('expand[]', key)
    const models = (await this.getJson(`/api/models?${params}`, query, `the search for "${query}"`)) as ApiModel[]
    if (!Array.isArray(models)) throw new DownloadError('The hub answered the search with something that is not a list of models.', 'http')
    return models.map((m) => {
      const entry: LibraryEntry = { source: 'hf', id: m.id, name: m.id }
      if (typeof m.downloads === 'number') entry.downloads = m.downloads
      if (typeof m.likes === 'number') entry.likes = m.likes
      if (m.lastModified) entry.updatedAt = m.lastModified
      const license = m.tags?.find((t) => t.startsWith('license:'))
      if (license) entry.license = license.slice('license:'.length)
      entry.gated = m.gated ?? false
      return entry
    })
  }

  /** Every file of the repository (recursively), with sha256 where the file is in LFS. */
  async tree(repo: string, revision = 'main'): Promise<RepoFile[]> {
    if (!isRepoId(repo)) throw new DownloadError(`"${repo}" is not a repository name; use owner/name.`, 'notFound')
    const entries = (await this.getJson(`/api/models/${repo}/tree/${encodeURIComponent(revision)}?recursive=true`, repo, `the file list of ${repo}`)) as TreeEntry[]
    if (!Array.isArray(entries)) throw new DownloadError(`The hub's file list for ${repo} is not a list.`, 'http')
    return entries
      .filter((e) => e.type === 'file')
      .map((e) => {
        const file: RepoFile = { path: e.path, sizeBytes: e.lfs?.size ?? e.size }
        if (e.lfs?.oid) file.sha256 = e.lfs.oid
        return file
      })
  }

  fileUrl(repo: string, path: string, revision = 'main'): string {
    return `${this.endpoint}/${repo}/resolve/${encodeURIComponent(revision)}/${path.split('/').map(encodeURIComponent).join('/')}`
  }

  private async getJson(path: string, what: string, asked: string): Promise<unknown> {
    const doFetch = this.options.fetch ?? fetch
    const source = hubName(this.endpoint)
    let answer: HubAnswer
    try {
      // Bounded in size and in silence: a broken or hostile mirror is an error, never a CLI that grows or waits for ever.
      answer = await readFromHub(doFetch, `${this.endpoint}${path}`, { headers: { Accept: 'application/json', ...(await this.headers()) } }, { source, what: asked, maxBytes: MAX_LIST_BYTES, totalMs: 60_000 })
    } catch (error) {
      if (error instanceof DownloadError) throw error
      throw new DownloadError(`Could not reach ${new URL(this.endpoint).host} (${(error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message}). Check the network, or set a mirror address for the hub.`, 'network')
    }
    if (answer.status === 404) throw new DownloadError(`The hub has no repository "${what}" (or it is private: add a token).`, 'notFound', 404)
    if (answer.status === 401) throw new DownloadError(`"${what}" is gated or private: ${HF_TOKEN_HINT}, then try again.`, 'unauthorized', 401)
    if (!answer.ok) throw new DownloadError(`The hub answered ${answer.status}.`, answer.status >= 500 ? 'network' : 'http', answer.status)
    return parseHubJson(answer, { source, what: asked })
  }
}
