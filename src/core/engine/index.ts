import { existsSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { BuiltinEngine } from './builtin-engine'
import { forkSpawner, type EngineSpawner } from './engine-process'

/**
 * The one built-in engine of this process. The shell may choose how the engine process starts
 * (the desktop gives an Electron utilityProcess spawner); otherwise it is a child process of
 * the built host entry (out/main/engine-host.js) found beside the running bundle.
 */
let engine: BuiltinEngine | undefined
let spawner: EngineSpawner | undefined
let dataDir: string | undefined

/** Where the built host entry is: beside the bundle (out/main or out/main/chunks), or out/main from the sources (tests). */
export function engineHostEntry(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SWITCHBOARD_ENGINE_HOST) return env.SWITCHBOARD_ENGINE_HOST
  const here = dirname(fileURLToPath(import.meta.url))
  const candidates = [join(here, 'engine-host.js'), join(here, '..', 'engine-host.js'), resolve(here, '..', '..', '..', 'out', 'main', 'engine-host.js')]
  return candidates.find((c) => existsSync(c)) ?? candidates[0]!
}

/** Set by the shell before first use; a later call replaces an engine that has not started. */
export function configureBuiltinEngine(options: { spawner?: EngineSpawner; dataDir?: string }): void {
  if (options.spawner) spawner = options.spawner
  if (options.dataDir) dataDir = options.dataDir
  if (engine && !engine.client.running) engine = undefined
}

export function builtinEngine(): BuiltinEngine {
  engine ??= new BuiltinEngine({ spawner: spawner ?? forkSpawner({ entry: engineHostEntry() }), ...(dataDir ? { dataDir } : {}) })
  return engine
}

/** Stops the engine process (the app is closing). */
export async function closeBuiltinEngine(): Promise<void> {
  const current = engine
  engine = undefined
  await current?.close()
}

export { BuiltinEngine, ModelTooLargeError, ModelFileError, formatBytes, defaultThreads } from './builtin-engine'
export { EngineError, EngineCrashedError } from './engine-client'
export { forkSpawner, type EngineSpawner, type EngineProcess } from './engine-process'
