import { join } from 'node:path'
import type { LibraryEntry } from '../../shared/models-library/types'
import { defaultLmStudioDirs, defaultOllamaModelsDir, discoverModels, type DiscoveredModel } from '../engine/model-discovery'

export interface ModelFolders {
  /** The app's data folder: its `models/` is the built-in engine's store. */
  dataDir: string
  /** Ollama's store, read in place ($OLLAMA_MODELS, else ~/.ollama/models). */
  ollama?: string
  /** LM Studio's models folders, read in place. */
  lmstudio?: string[]
}

export function defaultModelFolders(dataDir: string, env: NodeJS.ProcessEnv = process.env): ModelFolders {
  return { dataDir, ollama: defaultOllamaModelsDir(env), lmstudio: defaultLmStudioDirs() }
}

const OWNER: Record<DiscoveredModel['source'], NonNullable<LibraryEntry['owner']>> = { library: 'switchboard', ollama: 'ollama', lmstudio: 'lmstudio', user: 'user' }

const entry = (m: DiscoveredModel, owner: LibraryEntry['owner']): LibraryEntry => ({
  source: 'disk',
  id: `${owner}:${m.id}`,
  name: m.name,
  path: m.path,
  owner,
  sizeBytes: m.sizeBytes
})

/**
 * The models already on this machine, each where it is: the engine's discovery (our
 * downloads, the Ollama models pulled without Ollama into `<dataDir>/models/ollama`,
 * Ollama's store, LM Studio's folders), so the library and the engine list the same
 * models. Nothing is copied; `owner` says whose file it is, so deleting one of another
 * app's is never silent.
 */
export async function modelsOnDisk(folders: ModelFolders): Promise<LibraryEntry[]> {
  const found = await discoverModels({ dataDir: folders.dataDir, ollamaModelsDir: folders.ollama ?? join(folders.dataDir, 'no-ollama-store'), lmStudioDirs: folders.lmstudio ?? [] })
  return found.models.map((m) => entry(m, OWNER[m.source]))
}
