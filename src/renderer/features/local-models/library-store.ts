import { create } from 'zustand'
import type { AppError } from '../../../shared/errors/app-error'
import { isFinalDownloadPhase, type DownloadSnapshot, type LibraryEntry, type RepoDetails } from '../../../shared/models-library/types'
import type { LibrarySettingsView } from '../../../shared/bridge/procedures/models-library'
import { bridge } from '../../stores/app-store'
import { followRunningTasks, followTask } from '../../bridge/follow-task'

/**
 * The model library as the renderer sees it: a search over Hugging Face, the Ollama library
 * and the disk; one repository's quantisations with their fit; the downloads, followed over
 * the bridge as tasks (kind `download`) so they keep showing after the page closes.
 */
interface LibraryState {
  query: string
  searching: boolean
  entries: LibraryEntry[]
  sourceErrors: Array<{ source: string; message: string }>
  repo?: RepoDetails
  repoLoading?: string
  downloads: Record<string, DownloadSnapshot>
  order: string[]
  error?: AppError
  settings?: LibrarySettingsView
  search(query: string): Promise<void>
  openRepo(repo: string, contextTokens?: number): Promise<void>
  closeRepo(): void
  /** Starts a download (or joins the one running for it); the download's id, or undefined when refused (the error is in `error`). */
  download(ref: string, force?: boolean): Promise<string | undefined>
  pause(id: string): Promise<void>
  resume(id: string): Promise<void>
  cancel(id: string): Promise<void>
  dismiss(id: string): Promise<void>
  loadSettings(): Promise<void>
  saveSettings(patch: { hubEndpoint?: string | null; proxy?: string | null; ollamaRegistry?: string | null; hfToken?: string | null }): Promise<boolean>
  sync(): Promise<void>
}

const watching = new Set<string>()

function put(snap: DownloadSnapshot) {
  useLibrary.setState((s) => ({ downloads: { ...s.downloads, [snap.id]: snap }, order: s.order.includes(snap.id) ? s.order : [snap.id, ...s.order] }))
}

function follow(taskId: string) {
  if (watching.has(taskId)) return
  watching.add(taskId)
  followTask('download', taskId, {
    onEvent: (snap) => put(snap),
    onEnd: () => watching.delete(taskId),
    onRefused: () => watching.delete(taskId)
  })
}

export const useLibrary = create<LibraryState>()((set, get) => ({
  query: '',
  searching: false,
  entries: [],
  sourceErrors: [],
  downloads: {},
  order: [],
  async search(query) {
    set({ query, searching: true, error: undefined })
    const result = await bridge().call('models.search', { query })
    if (get().query !== query) return
    if (result.ok) set({ entries: result.value.entries, sourceErrors: result.value.errors, searching: false })
    else set({ error: result.error, searching: false })
  },
  async openRepo(repo, contextTokens) {
    set({ repoLoading: repo, error: undefined })
    const result = await bridge().call('models.repo', { repo, ...(contextTokens ? { contextTokens } : {}) })
    if (get().repoLoading !== repo) return
    if (result.ok) set({ repo: result.value, repoLoading: undefined })
    else set({ error: result.error, repoLoading: undefined })
  },
  closeRepo() {
    set({ repo: undefined, repoLoading: undefined })
  },
  async download(ref, force) {
    const result = await bridge().call('models.download.start', { ref, ...(force ? { force } : {}) })
    if (!result.ok) {
      set({ error: result.error })
      return undefined
    }
    set({ error: undefined })
    const { taskId, ...snap } = result.value
    put(snap)
    follow(taskId)
    return snap.id
  },
  async pause(id) {
    await bridge().call('models.download.pause', { id })
  },
  async resume(id) {
    const result = await bridge().call('models.download.resume', { id })
    if (!result.ok) return set({ error: result.error })
    const { taskId, ...snap } = result.value
    put(snap)
    follow(taskId)
  },
  async cancel(id) {
    await bridge().call('models.download.cancel', { id })
    const list = await bridge().call('models.download.list', {})
    if (list.ok) for (const snap of list.value) if (snap.id === id) put(snap)
  },
  async dismiss(id) {
    await bridge().call('models.download.dismiss', { id })
    const { [id]: _gone, ...rest } = get().downloads
    set({ downloads: rest, order: get().order.filter((o) => o !== id) })
  },
  async loadSettings() {
    const result = await bridge().call('models.settings.get', {})
    if (result.ok) set({ settings: result.value })
  },
  async saveSettings(patch) {
    const result = await bridge().call('models.settings.set', patch)
    if (!result.ok) {
      set({ error: result.error })
      return false
    }
    set({ settings: result.value, error: undefined })
    return true
  },
  async sync() {
    // Paused and finished downloads are listed too (a paused one has no running task).
    const list = await bridge().call('models.download.list', {})
    if (list.ok) for (const snap of list.value) put(snap)
    await followRunningTasks('download', (task) => follow(task.id))
  }
}))

export const runningDownloads = (s: LibraryState) => s.order.map((id) => s.downloads[id]).filter((d): d is DownloadSnapshot => d !== undefined && !isFinalDownloadPhase(d.phase) && d.phase !== 'paused')
