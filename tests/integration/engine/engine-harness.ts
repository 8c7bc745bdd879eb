import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { BuiltinEngine } from '../../../src/core/engine/builtin-engine'
import { EngineSettings } from '../../../src/core/engine/engine-settings'
import { forkSpawner } from '../../../src/core/engine/engine-process'
import { writeTinyLlamaGguf } from '../../fixtures/gguf/tiny-llama'

/** The built host entry (tests/build-once.ts builds out/ before the tests). */
export const ENGINE_HOST = resolve(import.meta.dirname, '..', '..', '..', 'out', 'main', 'engine-host.js')

export interface EngineHarness {
  dir: string
  dataDir: string
  engine: BuiltinEngine
  settings: EngineSettings
  /** Writes a tiny model to <dataDir>/models/<name>.gguf (id `<name>`) and returns its path. */
  model(name: string, seed?: number): string
  close(): Promise<void>
}

/** A BuiltinEngine on a temporary data folder that sees no model of the machine's own (no ~/.ollama). */
export function engineHarness(options: { totalMemoryBytes?: number } = {}): EngineHarness {
  const dir = mkdtempSync(join(tmpdir(), 'sb-engine-'))
  const dataDir = join(dir, 'data')
  mkdirSync(join(dataDir, 'models'), { recursive: true })
  const settings = new EngineSettings()
  const engine = new BuiltinEngine({
    spawner: forkSpawner({ entry: ENGINE_HOST }),
    dataDir,
    settings,
    discovery: { home: dir, env: {} },
    cpuCount: 2,
    ...(options.totalMemoryBytes ? { totalMemoryBytes: options.totalMemoryBytes } : {})
  })
  return {
    dir,
    dataDir,
    engine,
    settings,
    model(name, seed = 1234) {
      const path = join(dataDir, 'models', `${name}.gguf`)
      writeTinyLlamaGguf(path, { seed })
      return path
    },
    async close() {
      await engine.close()
      rmSync(dir, { recursive: true, force: true })
    }
  }
}
