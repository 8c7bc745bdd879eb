import { existsSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { BuiltinEngine } from './builtin-engine'
import { engineSpawner, type EngineSpawner, type UtilityProcessSpawner } from './engine-process'
import { unavailable, type Unavailable } from '../unavailable'
import { ENGINE_STATE_FILE } from './engine-state'

/**
 * The engine of a process that has no core: a CLI command (`builtin …`, `chat builtin/…`) runs
 * its own for the length of the command. The app's engine is a service of the composition root
 * (`createEngineService`, root.ts), never this one.
 */
let engine: BuiltinEngine | undefined
let spawner: EngineSpawner | undefined
let utilityProcess: UtilityProcessSpawner | undefined
let dataDir: string | undefined

/** Where the built host entry is: beside the bundle (out/main or out/main/chunks), or out/main from the sources (tests). */
export function engineHostEntry(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SWITCHBOARD_ENGINE_HOST) return env.SWITCHBOARD_ENGINE_HOST
  const here = dirname(fileURLToPath(import.meta.url))
  const candidates = [join(here, 'engine-host.js'), join(here, '..', 'engine-host.js'), resolve(here, '..', '..', '..', 'out', 'main', 'engine-host.js')]
  return candidates.find((c) => existsSync(c)) ?? candidates[0]!
}

export interface EngineServiceOptions {
  dataDir: string
  /** How the engine process starts; default the one `engineSpawner` chooses for `hostEntry`. */
  spawner?: EngineSpawner
  /** The shell's utilityProcess spawner (the desktop, the installed CLI's `api serve`): chosen under Electron. */
  utilityProcess?: UtilityProcessSpawner | undefined
  /** The built host entry; default the one beside the running bundle (engineHostEntry). */
  hostEntry?: string
  /** Whether a model may be named by a host path (the client policy's `mayNameHostPaths`). */
  hostPaths: boolean
}

/**
 * The app's engine, built by the composition root. Unavailable (with the fix) when its host entry
 * is missing, so the rest of the app starts and the Local models page says why; a native library
 * that cannot load fails in the engine process, at the first load, as that load's error.
 */
export function createEngineService(options: EngineServiceOptions): BuiltinEngine | Unavailable {
  const entry = options.hostEntry ?? engineHostEntry()
  if (!options.spawner && !existsSync(entry)) {
    return unavailable(`its process entry ${entry} was not found; build the app first (npx electron-vite build), or set SWITCHBOARD_ENGINE_HOST to the built engine-host.js`)
  }
  // The app's engine says what it has loaded, so `switchboard builtin ps` on this data folder can show it.
  return new BuiltinEngine({ spawner: options.spawner ?? engineSpawner({ entry, utilityProcess: options.utilityProcess }), dataDir: options.dataDir, stateFile: join(options.dataDir, ENGINE_STATE_FILE), hostPaths: options.hostPaths })
}

/** Set by a CLI command before first use; a later call replaces an engine that has not started. */
export function configureBuiltinEngine(options: { spawner?: EngineSpawner; utilityProcess?: UtilityProcessSpawner | undefined; dataDir?: string }): void {
  if (options.spawner) spawner = options.spawner
  if (options.utilityProcess) utilityProcess = options.utilityProcess
  if (options.dataDir) dataDir = options.dataDir
  if (engine && !engine.client.running) engine = undefined
}

export function builtinEngine(): BuiltinEngine {
  engine ??= new BuiltinEngine({ spawner: spawner ?? engineSpawner({ entry: engineHostEntry(), utilityProcess }), ...(dataDir ? { dataDir } : {}) })
  return engine
}

/** Stops the engine process (the app is closing). */
export async function closeBuiltinEngine(): Promise<void> {
  const current = engine
  engine = undefined
  await current?.close()
}

export { BuiltinEngine, ModelTooLargeError, ModelFileError, defaultThreads } from './builtin-engine'
/** The one byte formatter (decimal units), so the engine's figures read like the library's and the pages'. */
export { formatBytes } from '../../shared/local/format'
export { EngineError, EngineCrashedError } from './engine-client'
export { forkSpawner, engineSpawner, type EngineSpawner, type EngineProcess, type UtilityProcessSpawner } from './engine-process'
export { appEngineState, type EngineState } from './engine-state'
