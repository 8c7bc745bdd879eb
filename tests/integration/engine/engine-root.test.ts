import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isUnavailable } from '../../../src/core/services-access'
import { processRunning } from '../../../src/core/store/data-lock'
import { MemoryBackend } from '../../../src/core/secrets'
import type { Result } from '../../../src/shared/errors/app-error'
import { writeTinyLlamaGguf } from '../../fixtures/gguf/tiny-llama'
import { readyTestCore, startTestCore, type TestCore, type TestCoreOptions } from '../test-core'

// The engine and the model library are services of the composition root: built by it, reached by
// the handlers through it, closed with it; an engine that cannot start is an Unavailable with its reason.
const ok = <T>(r: Result<T>): T => {
  if (!r.ok) throw new Error(`${r.error.errorType}: ${r.error.message}`)
  return r.value
}
let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sb-engine-root-'))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

async function started(name: string, options: TestCoreOptions = {}): Promise<TestCore> {
  const dataDir = join(dir, name)
  mkdirSync(join(dataDir, 'models'), { recursive: true })
  writeTinyLlamaGguf(join(dataDir, 'models', 'tiny.gguf'))
  return readyTestCore('sb-engine-root-', { dataDir, secrets: { backend: new MemoryBackend() }, ...options })
}

describe('the engine and the model library in the composition root', () => {
  it('the handlers use the root engine, and closing the core stops its process', async () => {
    const { core, client } = await started('root')
    const engine = core.services().engine
    if (isUnavailable(engine)) throw new Error(engine.reason)
    expect(core.services().modelsLibrary.library).toBeDefined()
    ok(await client.call('engine.load', { model: 'tiny' }))
    const ps = await engine.ps()
    expect(ps.models.map((m) => m.modelId)).toEqual(['tiny'])
    expect(ps.pid).toBeGreaterThan(0)
    await core.close()
    expect(engine.client.running).toBe(false)
    expect(processRunning(ps.pid!)).toBe(false)
  }, 60_000)

  it('an engine whose host cannot be found is unavailable with the reason, and the rest of the core works', async () => {
    const missing = join(dir, 'no-such-engine-host.js')
    const { core, client } = await started('unavailable', { engine: { hostEntry: missing } })
    const engine = core.services().engine
    expect(isUnavailable(engine) && engine.reason).toContain(missing)
    const status = await client.call('engine.status', {})
    expect(status.ok).toBe(false)
    if (!status.ok) expect(status.error.message).toMatch(/built-in engine is not available: .*no-such-engine-host/)
    ok(await client.call('chat.sidebar', {}))
    ok(await client.call('models.download.list', {}))
    await core.close()
  }, 60_000)

  it('the engine answers while start-up has failed (it needs no store), and the store-backed services say why they cannot', async () => {
    // A data folder that is a file: start-up fails before the store opens.
    const { writeFileSync } = await import('node:fs')
    const notAFolder = join(dir, 'a-file')
    writeFileSync(notAFolder, 'not a folder')
    const { core, client, state } = await startTestCore('sb-engine-root-', { dataDir: notAFolder, secrets: { backend: new MemoryBackend() } })
    try {
      expect(state.phase).toBe('error')
      const status = ok(await client.call('engine.status', {}))
      expect(status.loaded).toEqual([])
      const chat = await client.call('chat.sidebar', {})
      expect(chat.ok).toBe(false)
    } finally {
      await core.close()
    }
  }, 60_000)
})
