import type { Feature } from '../feature'
import { isUnavailable, type Unavailable } from '../unavailable'
import type { BuiltinEngine, EngineSpawner, UtilityProcessSpawner } from './index'
import { createEngineService } from './index'
import { engineHandlers } from './handlers'
import { mayNameHostPaths } from '../security/client-policy'

/** How the engine process starts: the shell under Electron gives its utilityProcess spawner; tests a host entry. */
export interface EngineOptions {
  spawner?: EngineSpawner
  utilityProcess?: UtilityProcessSpawner | undefined
  hostEntry?: string
}

interface Deps {
  env: { dataDir: string; engine?: EngineOptions | undefined; mode: 'desktop' | 'browser' | 'test'; access?: { password?: string } | undefined }
}

/**
 * The built-in engine (llama.cpp in its own process); unavailable, with the fix, when its process
 * entry is missing. Needs no store, so it stands (root.ts); its process stops when the core ends.
 */
export const engineFeature: Feature<Deps, { engine: BuiltinEngine | Unavailable }, keyof ReturnType<typeof engineHandlers>> = {
  // Who calls is fixed by the mode: a browser-mode core names no built-in model by a host path.
  create: ({ env }) => ({ engine: createEngineService({ dataDir: env.dataDir, ...env.engine, hostPaths: mayNameHostPaths(env) }) }),
  handlers: (use, env) => engineHandlers(env, use('engine', 'The built-in engine')),
  close: async ({ engine }) => {
    if (!isUnavailable(engine)) await engine.close()
  }
}
