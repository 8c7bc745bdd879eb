import { availableParallelism, freemem, totalmem } from 'node:os'
import { basename, isAbsolute, join } from 'node:path'
import { stat } from 'node:fs/promises'
import { EngineClient, EngineError, type ChatStreamItem } from './engine-client'
import type { EngineSpawner } from './engine-process'
import { EngineSettings, type EngineSettingsData } from './engine-settings'
import { removeEngineState, writeEngineState } from './engine-state'
import { GgufFormatError, readGgufHeader, type GgufHeader } from './gguf-header'
import { formatBytes } from '../../shared/local/format'
import { contextPlan, DEFAULT_CONTEXT_CAP, estimateMemory, FALLBACK_CONTEXT, slotsFor, wantedContext, type MemoryAvailable } from '../gguf/fit-estimate'
import { discoverModels, type DiscoveredModel, type DiscoveryOptions, type DiscoveryProblem } from './model-discovery'
import type { ChatParams, EmbedResult, EngineStatus } from './protocol'

export type LoadRefusalReason = 'too-large' | 'bad-file'

/** A load the budget does not allow. The message has the figures; `loadAnyway` overrides it. */
export class ModelTooLargeError extends EngineError {
  constructor(
    message: string,
    readonly figures: { neededBytes: number; weightsBytes: number; contextBytes: number; contextSize: number; budgetBytes: number; totalBytes: number }
  ) {
    super('load-failed', message)
    this.name = 'ModelTooLargeError'
  }
}

export class ModelFileError extends EngineError {
  constructor(message: string, readonly reason: GgufFormatError['reason'] | 'missing' | 'unknown-model') {
    super('load-failed', message)
    this.name = 'ModelFileError'
  }
}

export interface LoadPlan {
  modelId: string
  path: string
  name: string
  /** Per slot: what one request has. */
  contextSize: number
  /** Requests served at once (context sequences), from the memory. */
  slots: number
  trainedContextSize?: number
  /** Why the context is what it is, for the status page (never a silent cap). */
  contextReason: 'user' | 'trained' | 'capped-default' | 'capped-memory'
  weightsBytes: number
  contextBytes: number
  neededBytes: number
  budgetBytes: number
  architecture?: string
}

export interface BuiltinModel extends DiscoveredModel {
  loaded: boolean
  contextSize?: number
  lastUsedAt?: number
}

export interface BuiltinPsEntry extends LoadPlan {
  lastUsedAt: number
  busy: number
  /** Until when the keep-alive holds it (undefined: kept until unloaded). */
  expiresAt?: number
}

export interface BuiltinPs {
  running: boolean
  pid?: number
  spawnKind: string
  /** The engine process's resident memory, measured by the engine. */
  rssBytes?: number
  budgetBytes: number
  totalBytes: number
  threads: number
  models: BuiltinPsEntry[]
}

export interface BuiltinEngineOptions {
  spawner: EngineSpawner
  dataDir?: string
  settings?: EngineSettings
  /** Where to look besides the user's paths and <dataDir>/models (tests point these at temp folders). */
  discovery?: Omit<DiscoveryOptions, 'dataDir' | 'userPaths'>
  totalMemoryBytes?: number
  /** Free memory now (the OS's available figure by default). */
  freeMemoryBytes?: () => number
  cpuCount?: number
  now?: () => number
  /** Where to say what is loaded for a CLI command on the same data folder (the app's engine only). */
  stateFile?: string
  /**
   * Whether a name may be a .gguf path on the host (`builtin/<path>`): for the person at the host
   * (the desktop, the CLI). False in browser mode (`mayNameHostPaths`): listed models by name only.
   */
  hostPaths?: boolean
}

interface LoadedEntry {
  plan: LoadPlan
  lastUsedAt: number
  /** Increases with every use: orders uses within one clock millisecond. */
  order: number
  busy: number
  timer?: ReturnType<typeof setTimeout>
  expiresAt?: number
}


/** One thread on 2 cores or fewer (measured several times faster than two there); else half the cores, at most 8. */
export function defaultThreads(cpus: number): number {
  return cpus <= 2 ? 1 : Math.min(8, Math.floor(cpus / 2))
}

/**
 * The built-in engine as the core sees it: which models exist, which are loaded, and the policy:
 * load on first use, a context from the GGUF capped by what fits, a memory budget shared by the
 * loaded models (least recently used leaves first), keep-alive and idle unload. llama.cpp itself
 * runs in the engine process (EngineClient); nothing here loads a model into the core.
 */
export class BuiltinEngine {
  readonly client: EngineClient
  readonly settings: EngineSettings
  private readonly loaded = new Map<string, LoadedEntry>()
  private readonly loading = new Map<string, Promise<LoadPlan>>()
  private discovered: { at: number; result: Promise<{ models: DiscoveredModel[]; problems: DiscoveryProblem[] }> } | undefined
  private readonly now: () => number
  private uses = 0
  /** The one fresh look at the disk that misses of the moment share (a burst of unknown names walks it once). */
  private lookingAgain: ReturnType<BuiltinEngine['discover']> | undefined

  constructor(private readonly options: BuiltinEngineOptions) {
    this.client = new EngineClient(options.spawner)
    this.settings = options.settings ?? new EngineSettings(options.dataDir ? join(options.dataDir, 'engine-settings.json') : undefined)
    this.now = options.now ?? Date.now
    // A crash empties the engine: nothing is loaded any more, and the next request loads again.
    this.client.onExit(() => {
      for (const entry of this.loaded.values()) clearTimeout(entry.timer)
      this.loaded.clear()
      this.publish()
    })
  }

  get totalBytes(): number {
    return this.options.totalMemoryBytes ?? totalmem()
  }

  get freeMemoryBytes(): number {
    return this.options.freeMemoryBytes?.() ?? freemem()
  }

  /** What a model may use: free memory, at most the budget (the fit estimate's terms). */
  get memory(): MemoryAvailable {
    return { freeRamBytes: this.freeMemoryBytes, budgetBytes: this.budgetBytes }
  }

  get budgetBytes(): number {
    return this.settings.get().memoryBudgetBytes ?? this.defaultBudgetBytes
  }

  get cpuCount(): number {
    return this.options.cpuCount ?? availableParallelism()
  }

  get defaultBudgetBytes(): number {
    return Math.floor(this.totalBytes * 0.75)
  }

  get threads(): number {
    return this.settings.get().threads ?? defaultThreads(this.cpuCount)
  }

  /**
   * Changes the settings. A new keep-alive applies at once to the models loaded now (their idle
   * time counts from their last use); threads, budget and context length apply at the next load.
   */
  updateSettings(patch: Partial<EngineSettingsData>): void {
    this.settings.update(patch)
    if (patch.keepAliveMs === undefined) return
    for (const [id, entry] of this.loaded) if (entry.busy === 0) this.scheduleIdle(id, entry.lastUsedAt)
  }

  /** Models on disk, discovered again at most every 5 s (a list page polls; the disk is not walked each time). */
  async discover(fresh = false): Promise<{ models: DiscoveredModel[]; problems: DiscoveryProblem[] }> {
    if (fresh || !this.discovered || this.now() - this.discovered.at > 5000) {
      const result = discoverModels({ ...this.options.discovery, ...(this.options.dataDir ? { dataDir: this.options.dataDir } : {}), userPaths: this.settings.get().modelPaths })
      this.discovered = { at: this.now(), result }
      result.catch(() => (this.discovered = undefined))
    }
    return this.discovered.result
  }

  async list(): Promise<{ models: BuiltinModel[]; problems: DiscoveryProblem[] }> {
    const { models, problems } = await this.discover()
    return {
      problems,
      models: models.map((m) => {
        const entry = this.loaded.get(m.id)
        return { ...m, loaded: entry !== undefined, ...(entry ? { contextSize: entry.plan.contextSize, lastUsedAt: entry.lastUsedAt } : {}) }
      })
    }
  }

  /**
   * The listed model of this name (the library, the folders added on the Local models page, Ollama's
   * and LM Studio's), looked for once more on the disk when the list of the last 5 s lacks it: a
   * model added a moment ago is found. Never a path: the one check of "is this name listed".
   */
  async listed(name: string): Promise<DiscoveredModel | undefined> {
    const find = ({ models }: { models: DiscoveredModel[] }) => models.find((m) => m.id === name)
    return find(await this.discover()) ?? find(await (this.lookingAgain ??= this.discover(true).finally(() => (this.lookingAgain = undefined))))
  }

  /**
   * A model by the name `builtin/<name>` gives: a listed id, or (for the person at the host) an
   * absolute .gguf path, run in place; its id is the path.
   */
  async resolve(name: string): Promise<{ id: string; path: string; name: string }> {
    const paths = this.options.hostPaths !== false
    const asPath = !paths ? undefined : name.startsWith('/') || isAbsolute(name) ? name : /\.gguf$/i.test(name) && isAbsolute(`/${name}`) ? `/${name}` : undefined
    if (asPath && /\.gguf$/i.test(asPath)) {
      try {
        await stat(asPath)
      } catch {
        throw new ModelFileError(`No model file at ${asPath}.`, 'missing')
      }
      return { id: asPath, path: asPath, name: basename(asPath).replace(/\.gguf$/i, '') }
    }
    const found = await this.listed(name)
    if (!found) {
      // The same answer for every name the lists lack, whatever is at that path on the disk.
      const known = (await this.discover()).models.map((m) => m.id).slice(0, 8)
      throw new ModelFileError(
        `The built-in engine has no model "${name}". ${known.length ? `Models found: ${known.join(', ')}.` : 'No models were found on disk.'} ${paths ? 'Add a .gguf file in Local models, or run a file directly with builtin/<absolute path>.gguf.' : 'Choose one of the models on the Local models page by its name.'}`,
        'unknown-model'
      )
    }
    return { id: found.id, path: found.path, name: found.name }
  }

  /**
   * What loading this model would take, from its GGUF header: context, weights, KV cache, against
   * the budget. `contextSize` asks what a context length the user is choosing would take.
   */
  async plan(name: string, opts: { contextSize?: number } = {}): Promise<LoadPlan> {
    const model = await this.resolve(name)
    let header: GgufHeader
    let size: number
    try {
      header = await readGgufHeader(model.path)
      size = (await stat(model.path)).size
    } catch (error) {
      if (error instanceof GgufFormatError) throw new ModelFileError(`${model.name}: ${error.message}`, error.reason)
      throw new ModelFileError(`${model.name}: the file cannot be read (${error instanceof Error ? error.message : String(error)}).`, 'missing')
    }
    if (header.fileKind === 'mmproj' || header.architecture === 'clip') {
      throw new ModelFileError(`${model.name} is a vision projector, not a chat model; vision is not supported by the built-in engine.`, 'not-gguf')
    }
    const discovered = (await this.discover()).models.find((m) => m.id === model.id)
    const weightsBytes = discovered?.sizeBytes ?? size
    const budget = this.budgetBytes
    const memory = { ...this.memory, budgetBytes: budget }
    const trained = header.contextLength
    const sizes = this.settings.get().contextSizes
    // Own entries only: a model named `constructor` has no context size on Object.prototype.
    const user = opts.contextSize ?? (Object.hasOwn(sizes, model.id) ? sizes[model.id] : undefined)
    let contextSize: number
    let slots: number
    let contextReason: LoadPlan['contextReason']
    if (user) {
      contextSize = trained ? Math.min(user, trained) : user
      slots = slotsFor(header.shape, weightsBytes, contextSize, memory)
      contextReason = 'user'
    } else {
      // The one default (the model library judges its fit at the same total).
      const wanted = wantedContext(header.shape)
      const chosen = contextPlan(header.shape, weightsBytes, memory)
      contextSize = chosen.perSlot
      slots = chosen.slots
      contextReason = contextSize < wanted ? 'capped-memory' : (trained ?? FALLBACK_CONTEXT) > DEFAULT_CONTEXT_CAP ? 'capped-default' : 'trained'
    }
    const fit = estimateMemory(header.shape, weightsBytes, contextSize * slots, memory)
    const plan: LoadPlan = {
      modelId: model.id,
      path: model.path,
      name: discovered?.name ?? model.name,
      contextSize,
      slots,
      contextReason,
      weightsBytes,
      contextBytes: fit.kvCacheBytes,
      neededBytes: fit.totalBytes,
      budgetBytes: budget
    }
    if (trained !== undefined) plan.trainedContextSize = trained
    if (header.architecture) plan.architecture = header.architecture
    return plan
  }

  /**
   * Loads a model unless it is loaded; two loads of one model at once share one. Models used least
   * recently leave first to make room; a model that does not fit the budget even alone is refused
   * with the figures, unless `loadAnyway`.
   */
  async load(name: string, opts: { loadAnyway?: boolean } = {}): Promise<LoadPlan> {
    const model = await this.resolve(name)
    const existing = this.loaded.get(model.id)
    if (existing) {
      existing.lastUsedAt = this.now()
      existing.order = ++this.uses
      return existing.plan
    }
    const pending = this.loading.get(model.id)
    if (pending) return pending
    const promise = (async () => {
      const plan = await this.plan(model.id === model.path ? model.path : model.id)
      if (!opts.loadAnyway && plan.neededBytes > plan.budgetBytes) {
        throw new ModelTooLargeError(
          `${plan.name} needs about ${formatBytes(plan.neededBytes)} (weights ${formatBytes(plan.weightsBytes)} + context ${formatBytes(plan.contextBytes)} for ${(plan.contextSize * plan.slots).toLocaleString('en')} tokens), more than the memory budget of ${formatBytes(plan.budgetBytes)} (of ${formatBytes(this.totalBytes)} on this machine). Choose a smaller model or context, raise the budget in Local models, or load it anyway.`,
          { neededBytes: plan.neededBytes, weightsBytes: plan.weightsBytes, contextBytes: plan.contextBytes, contextSize: plan.contextSize, budgetBytes: plan.budgetBytes, totalBytes: this.totalBytes }
        )
      }
      // A model over the budget even alone (loaded anyway) would have every idle model unloaded
      // for it, and a model the engine then cannot load would leave nothing: the others stay
      // until it has loaded. Within the budget, room is made first, as the budget promises.
      const overBudget = plan.neededBytes > plan.budgetBytes
      if (!overBudget) await this.makeRoom(plan)
      await this.client.load({ modelId: plan.modelId, path: plan.path, contextSize: plan.contextSize, threads: this.threads, sequences: plan.slots })
      this.loaded.set(plan.modelId, { plan, lastUsedAt: this.now(), order: ++this.uses, busy: 0 })
      this.scheduleIdle(plan.modelId)
      if (overBudget) await this.makeRoom(plan)
      return plan
    })().finally(() => this.loading.delete(model.id))
    this.loading.set(model.id, promise)
    return promise
  }

  /** Unloads idle models, least recently used first, until `plan` fits the budget beside the rest. */
  private async makeRoom(plan: LoadPlan): Promise<void> {
    const others = () => [...this.loaded.values()].filter((e) => e.plan.modelId !== plan.modelId)
    const used = () => others().reduce((a, e) => a + e.plan.neededBytes, 0)
    const idle = others().filter((e) => e.busy === 0).sort((a, b) => a.order - b.order)
    while (used() + plan.neededBytes > plan.budgetBytes && idle.length) await this.unload(idle.shift()!.plan.modelId)
  }

  /** Writes what is loaded to the state file (when there is one), after each change. */
  private publish(): void {
    if (!this.options.stateFile) return
    writeEngineState(
      this.options.stateFile,
      [...this.loaded.values()].map(({ plan, expiresAt }) => ({
        modelId: plan.modelId,
        name: plan.name,
        contextSize: plan.contextSize,
        contextReason: plan.contextReason,
        weightsBytes: plan.weightsBytes,
        contextBytes: plan.contextBytes,
        ...(expiresAt ? { expiresAt } : {})
      }))
    )
  }

  /** Unloads the model `keepAliveMs` after `from` (its last use; default now). */
  private scheduleIdle(modelId: string, from = this.now()): void {
    const entry = this.loaded.get(modelId)
    if (!entry) return
    clearTimeout(entry.timer)
    delete entry.timer
    delete entry.expiresAt
    const keepAlive = this.settings.get().keepAliveMs
    if (keepAlive < 0 || entry.busy > 0) return this.publish()
    entry.expiresAt = from + keepAlive
    this.publish()
    entry.timer = setTimeout(() => {
      void this.unload(modelId, { stopWhenEmpty: true }).catch(() => undefined)
    }, Math.max(0, entry.expiresAt - this.now()))
    entry.timer.unref?.()
  }

  async unload(name: string, opts: { stopWhenEmpty?: boolean } = {}): Promise<boolean> {
    const id = this.loaded.has(name) ? name : (await this.resolve(name).catch(() => undefined))?.id
    const entry = id ? this.loaded.get(id) : undefined
    if (!id || !entry) return false
    clearTimeout(entry.timer)
    this.loaded.delete(id)
    this.publish()
    await this.client.unload(id).catch(() => undefined)
    // With nothing loaded the engine process has no reason to hold memory.
    if (opts.stopWhenEmpty && this.loaded.size === 0 && this.loading.size === 0) await this.client.stop()
    return true
  }

  private use(modelId: string): () => void {
    const entry = this.loaded.get(modelId)
    if (!entry) return () => undefined
    entry.busy++
    entry.lastUsedAt = this.now()
    entry.order = ++this.uses
    clearTimeout(entry.timer)
    return () => {
      entry.busy--
      entry.lastUsedAt = this.now()
      this.scheduleIdle(modelId)
    }
  }

  /** A chat with a model, loading it first if needed. Chunks, then `done`; a crash throws after the chunks so far. */
  async *chat(name: string, params: Omit<ChatParams, 'modelId'>, signal?: AbortSignal): AsyncGenerator<ChatStreamItem> {
    const plan = await this.load(name)
    const release = this.use(plan.modelId)
    try {
      yield* this.client.chat({ ...params, modelId: plan.modelId }, signal)
    } finally {
      release()
    }
  }

  async embed(name: string, inputs: Array<string | number[]>): Promise<EmbedResult> {
    const plan = await this.load(name)
    const release = this.use(plan.modelId)
    try {
      return await this.client.embed(plan.modelId, inputs)
    } finally {
      release()
    }
  }

  async ps(): Promise<BuiltinPs> {
    let status: EngineStatus | undefined
    try {
      status = await this.client.status()
    } catch {
      status = undefined
    }
    const out: BuiltinPs = {
      running: this.client.running,
      spawnKind: this.client.spawnKind,
      budgetBytes: this.budgetBytes,
      totalBytes: this.totalBytes,
      threads: this.threads,
      models: [...this.loaded.values()].map((e) => ({ ...e.plan, lastUsedAt: e.lastUsedAt, busy: e.busy, ...(e.expiresAt ? { expiresAt: e.expiresAt } : {}) }))
    }
    if (status) {
      out.pid = status.pid
      out.rssBytes = status.rssBytes
      for (const m of out.models) {
        const real = status.models.find((s) => s.modelId === m.modelId)
        if (real) {
          m.weightsBytes = real.weightsBytes
          m.contextBytes = real.contextBytes
          m.contextSize = real.contextSize
        }
      }
    }
    return out
  }

  async close(): Promise<void> {
    for (const entry of this.loaded.values()) clearTimeout(entry.timer)
    this.loaded.clear()
    if (this.options.stateFile) removeEngineState(this.options.stateFile)
    await this.client.stop()
  }
}
