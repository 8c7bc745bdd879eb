import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../files/private-files'
import { logger } from '../log/logger'

/** The built-in engine's settings, in one small JSON file in the data folder. */
export interface EngineSettingsData {
  /** How long a model stays loaded after its last use; 0 unloads at once, -1 keeps it. */
  keepAliveMs: number
  /** The most memory all loaded models may take together; unset: 75% of the machine's RAM. */
  memoryBudgetBytes?: number
  /** Threads for generation; unset: 1 on 2 cores or fewer, else half the cores up to 8. */
  threads?: number
  /** .gguf files and folders the user added. */
  modelPaths: string[]
  /** The user's context length per model id (wins over the computed default). */
  contextSizes: Record<string, number>
}

export const DEFAULT_KEEP_ALIVE_MS = 5 * 60_000

export class EngineSettings {
  private data: EngineSettingsData = { keepAliveMs: DEFAULT_KEEP_ALIVE_MS, modelPaths: [], contextSizes: {} }

  constructor(private readonly file?: string) {
    if (!file) return
    try {
      const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<EngineSettingsData>
      if (typeof parsed.keepAliveMs === 'number') this.data.keepAliveMs = parsed.keepAliveMs
      if (typeof parsed.memoryBudgetBytes === 'number' && parsed.memoryBudgetBytes > 0) this.data.memoryBudgetBytes = parsed.memoryBudgetBytes
      if (typeof parsed.threads === 'number' && parsed.threads > 0) this.data.threads = Math.floor(parsed.threads)
      if (Array.isArray(parsed.modelPaths)) this.data.modelPaths = parsed.modelPaths.filter((p): p is string => typeof p === 'string')
      if (parsed.contextSizes && typeof parsed.contextSizes === 'object') {
        // From entries, never assigned by key: a model may be named `__proto__`.
        this.data.contextSizes = Object.fromEntries(Object.entries(parsed.contextSizes).flatMap(([k, v]) => (typeof v === 'number' && v > 0 ? [[k, Math.floor(v)]] : [])))
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') logger.warn('engine', `reading ${file} failed; using the default engine settings`, error)
    }
  }

  get(): Readonly<EngineSettingsData> {
    return this.data
  }

  update(patch: Partial<EngineSettingsData>): void {
    this.data = { ...this.data, ...patch }
    if (!this.file) return
    mkdirSync(dirname(this.file), { recursive: true, mode: PRIVATE_DIR_MODE })
    const tmp = `${this.file}.tmp`
    writeFileSync(tmp, `${JSON.stringify(this.data, null, 2)}\n`, { mode: PRIVATE_FILE_MODE })
    renameSync(tmp, this.file)
  }
}
