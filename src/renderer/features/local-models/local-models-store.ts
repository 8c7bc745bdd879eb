import { create } from 'zustand'
import type { AppError } from '../../../shared/errors/app-error'
import type { LocalServerKind, LocalServerStatus } from '../../../shared/local/local-servers'
import type { DiskSpace, InstalledModel, ModelDetails, RunningModel } from '../../../shared/local/ollama-models'
import { bridge } from '../../stores/app-store'

/** The Local models page: servers, Ollama's models, details, disk. Pulls live in pulls-store. */
interface LocalModelsState {
  servers: LocalServerStatus[]
  models: InstalledModel[]
  running: RunningModel[]
  disk?: DiskSpace | null
  details: Record<string, ModelDetails | AppError>
  /** Ollama's list failed (not running, bad address…). */
  ollamaError?: AppError
  actionError?: AppError
  checking: boolean
  loaded: boolean
  refresh(): Promise<void>
  loadDetails(name: string): Promise<void>
  remove(name: string): Promise<boolean>
  setBaseUrl(kind: LocalServerKind, baseUrl: string | null): Promise<boolean>
}

export const useLocalModels = create<LocalModelsState>()((set, get) => ({
  servers: [],
  models: [],
  running: [],
  details: {},
  checking: false,
  loaded: false,
  async refresh() {
    if (get().checking) return
    set({ checking: true })
    try {
      const servers = await bridge().call('local.detect', {})
      if (servers.ok) set({ servers: servers.value })
      const ollama = servers.ok ? servers.value.find((s) => s.kind === 'ollama') : undefined
      if (ollama && !ollama.running) {
        set({ models: [], running: [], ollamaError: { errorType: 'OllamaServiceUnavailable', message: ollama.reason ?? '' } })
      } else {
        const [models, running, disk] = await Promise.all([
          bridge().call('local.ollama.models', {}),
          bridge().call('local.ollama.running', {}),
          bridge().call('local.disk', {})
        ])
        set({
          models: models.ok ? models.value : [],
          running: running.ok ? running.value : [],
          ollamaError: models.ok ? undefined : models.error,
          disk: disk.ok ? disk.value : undefined
        })
      }
    } finally {
      set({ checking: false, loaded: true })
    }
  },
  async loadDetails(name) {
    const result = await bridge().call('local.ollama.show', { model: name })
    set((s) => ({ details: { ...s.details, [name]: result.ok ? result.value : result.error } }))
  },
  async remove(name) {
    const result = await bridge().call('local.ollama.delete', { model: name })
    if (!result.ok) {
      set({ actionError: result.error })
      return false
    }
    set((s) => ({ actionError: undefined, models: s.models.filter((m) => m.name !== name) }))
    void get().refresh()
    return true
  },
  async setBaseUrl(kind, baseUrl) {
    const result = await bridge().call('local.setBaseUrl', { kind, baseUrl })
    if (!result.ok) {
      set({ actionError: result.error })
      return false
    }
    set((s) => ({ actionError: undefined, servers: s.servers.map((v) => (v.kind === kind ? result.value : v)) }))
    if (kind === 'ollama') void get().refresh()
    return true
  }
}))
