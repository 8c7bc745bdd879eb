import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Core } from '../../../src/core'
import { MemoryBackend } from '../../../src/core/secrets'
import { EngineSettings } from '../../../src/core/engine/engine-settings'
import type { BridgeClient } from '../../../src/shared/bridge/client'
import type { Contract } from '../../../src/shared/bridge/contract'
import type { Result } from '../../../src/shared/errors/app-error'
import { writeTinyLlamaGguf } from '../../fixtures/gguf/tiny-llama'
import { readyTestCore } from '../test-core'

// The engine's settings as the Local models page sets them, over the bridge: each takes effect
// in the engine (a model loads with the set context; keep-alive unloads after the idle time).
let dir: string
let dataDir: string
let core: Core
let client: BridgeClient<Contract>
const ok = <T>(r: Result<T>): T => {
  if (!r.ok) throw new Error(`${r.error.errorType}: ${r.error.message}`)
  return r.value
}
const MB = 1024 * 1024

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sb-engine-settings-'))
  dataDir = join(dir, 'data')
  mkdirSync(join(dataDir, 'models'), { recursive: true })
  writeTinyLlamaGguf(join(dataDir, 'models', 'tiny.gguf'))
  const app = await readyTestCore('sb-engine-settings-', { dataDir, secrets: { backend: new MemoryBackend() } })
  core = app.core
  client = app.client
}, 60_000)

afterAll(async () => {
  await core.close()
  rmSync(dir, { recursive: true, force: true })
})

async function until(check: () => Promise<boolean>, ms: number): Promise<void> {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (await check()) return
    await new Promise((r) => setTimeout(r, 200))
  }
  throw new Error(`not within ${ms} ms`)
}

describe('the engine settings over the bridge', () => {
  it('shows the defaults, and refuses values out of range with the reason', async () => {
    const status = ok(await client.call('engine.status', {}))
    expect(status.settings).toEqual({ keepAliveMs: 5 * 60_000, contextSizes: {} })
    expect(status.defaults.threads).toBeGreaterThanOrEqual(1)
    expect(status.defaults.budgetBytes).toBe(Math.floor(status.totalBytes * 0.75))
    for (const bad of [{ threads: 0 }, { threads: 1.5 }, { keepAliveMs: -2 }, { memoryBudgetBytes: 10 * MB }, { contextSize: { model: 'tiny', size: 100 } }]) {
      const r = await client.call('engine.setSettings', bad as never)
      expect(r.ok, JSON.stringify(bad)).toBe(false)
    }
    const tooMuch = await client.call('engine.setSettings', { memoryBudgetBytes: status.totalBytes * 2 })
    expect(tooMuch).toMatchObject({ ok: false, error: { errorType: 'ValidationError' } })
    if (!tooMuch.ok) expect(tooMuch.error.message).toMatch(/more than this computer's memory/)
  })

  it('estimates the memory of a context length before it is set', async () => {
    const small = ok(await client.call('engine.plan', { model: 'tiny', contextSize: 1024 }))
    const large = ok(await client.call('engine.plan', { model: 'tiny', contextSize: 2048 }))
    expect(small.contextSize).toBe(1024)
    expect(large.contextBytes).toBe(small.contextBytes * 2)
    // The KV cache, and the compute buffer's attention scores (4 bytes × 512 × 4 heads a token), for each slot.
    expect(large.neededBytes - small.neededBytes).toBe(small.contextBytes + 2 * 1024 * 4 * 512 * 4)
    expect(small.trainedContextSize).toBe(2048)
  })

  it('a model loads with the context length set for it, and threads and budget are the engine\'s', async () => {
    const status = ok(await client.call('engine.setSettings', { contextSize: { model: 'tiny', size: 1024 }, threads: 1, memoryBudgetBytes: 512 * MB }))
    expect(status.settings).toMatchObject({ contextSizes: { tiny: 1024 }, threads: 1, memoryBudgetBytes: 512 * MB })
    expect(status.budgetBytes).toBe(512 * MB)
    expect(status.threads).toBe(1)
    const loaded = ok(await client.call('engine.load', { model: 'tiny' }))
    // The engine process reports the context it really made.
    expect(loaded).toMatchObject({ contextSize: 1024, contextReason: 'user' })
    expect(JSON.parse(readFileSync(join(dataDir, 'engine-settings.json'), 'utf8'))).toMatchObject({ contextSizes: { tiny: 1024 }, threads: 1 })
    // Back to the defaults: null clears a setting.
    const back = ok(await client.call('engine.setSettings', { contextSize: { model: 'tiny', size: null }, threads: null, memoryBudgetBytes: null }))
    expect(back.settings).toEqual({ keepAliveMs: 5 * 60_000, contextSizes: {} })
    ok(await client.call('engine.unload', { model: 'tiny' }))
    expect(ok(await client.call('engine.load', { model: 'tiny' }))).toMatchObject({ contextSize: 2048, contextReason: 'trained' })
  }, 60_000)

  it('a shorter keep-alive unloads a model already loaded once it has been idle that long', async () => {
    expect(ok(await client.call('engine.status', {})).loaded.map((m) => m.modelId)).toEqual(['tiny'])
    const status = ok(await client.call('engine.setSettings', { keepAliveMs: 1500 }))
    expect(status.loaded[0]?.expiresAt).toBeLessThanOrEqual(Date.now() + 1500)
    await until(async () => ok(await client.call('engine.status', {})).loaded.length === 0, 20_000)
    // Never unload: a model stays.
    ok(await client.call('engine.setSettings', { keepAliveMs: -1 }))
    ok(await client.call('engine.load', { model: 'tiny' }))
    await new Promise((r) => setTimeout(r, 2500))
    const kept = ok(await client.call('engine.status', {}))
    expect(kept.loaded.map((m) => m.modelId)).toEqual(['tiny'])
    expect(kept.loaded[0]?.expiresAt).toBeUndefined()
  }, 60_000)

  it('a model named after an object member (constructor, __proto__, toString) has no context size but its own', async () => {
    for (const name of ['constructor', '__proto__', 'toString']) writeTinyLlamaGguf(join(dataDir, 'models', `${name}.gguf`))
    for (const name of ['constructor', '__proto__', 'toString']) {
      expect(ok(await client.call('engine.plan', { model: name })), name).toMatchObject({ modelId: name, contextSize: 2048, contextReason: 'trained' })
      const set = ok(await client.call('engine.setSettings', { contextSize: { model: name, size: 1024 } }))
      expect(Object.hasOwn(set.settings.contextSizes, name), name).toBe(true)
      expect(ok(await client.call('engine.plan', { model: name })), name).toMatchObject({ contextSize: 1024, contextReason: 'user' })
    }
    // Kept in the settings file as written, and read back as the same own entries.
    const file = JSON.parse(readFileSync(join(dataDir, 'engine-settings.json'), 'utf8')) as { contextSizes: Record<string, number> }
    expect(Object.entries(file.contextSizes)).toEqual(expect.arrayContaining([['constructor', 1024], ['__proto__', 1024], ['toString', 1024]]))
    expect(Object.entries(new EngineSettings(join(dataDir, 'engine-settings.json')).get().contextSizes)).toEqual(expect.arrayContaining([['__proto__', 1024]]))
    const cleared = ok(await client.call('engine.setSettings', { contextSize: { model: '__proto__', size: null } }))
    expect(Object.hasOwn(cleared.settings.contextSizes, '__proto__')).toBe(false)
    expect(ok(await client.call('engine.plan', { model: '__proto__' }))).toMatchObject({ contextSize: 2048, contextReason: 'trained' })
  })
})
