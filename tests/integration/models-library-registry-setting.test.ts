import { afterEach, describe, expect, it } from 'vitest'
import type { CoreOptions } from '../../src/core'
import { MemoryBackend } from '../../src/core/secrets'
import { startFakeOllamaRegistry, type FakeRegistry } from '../fixtures/fake-ollama-registry/server'
import { paddedModel } from '../fixtures/gguf-headers/write-gguf'
import { startTestCore, type TestCore } from './test-core'

// The Ollama registry's address is a library setting (the CLI's --registry for one run). A
// password-mode browser client may not change where the host downloads from (a registry,
// a hub mirror, a proxy): it would point the host at an address of its network.

const model = paddedModel(512 * 1024, 91)
let registry: FakeRegistry | undefined
const cores: TestCore[] = []
afterEach(async () => {
  for (const c of cores.splice(0)) await c.close()
  await registry?.close()
  registry = undefined
})

async function start(extra: Partial<CoreOptions> = {}) {
  const app = await startTestCore('sb-lib-registry-', { secrets: { backend: new MemoryBackend() }, ...extra })
  cores.push(app)
  return app
}

describe('the Ollama registry address setting', () => {
  it('is saved, shown, and used by ollama: downloads; null puts the default back', async () => {
    registry = await startFakeOllamaRegistry([{ name: 'tiny', tag: '1m', model }])
    const { core, client } = await start()
    const set = await client.call('models.settings.set', { ollamaRegistry: registry.url })
    expect(set).toMatchObject({ ok: true, value: { ollamaRegistry: registry.url } })
    expect(await client.call('models.settings.get', {})).toMatchObject({ ok: true, value: { ollamaRegistry: registry.url } })
    const started = await client.call('models.download.start', { ref: 'ollama:tiny:1m' })
    if (!started.ok) throw new Error(started.error.message)
    expect((await core.services().modelsLibrary.library.downloads.wait(started.value.id)).phase).toBe('success')
    const bad = await client.call('models.settings.set', { ollamaRegistry: 'ftp://registry.example' })
    expect(!bad.ok && bad.error.message).toMatch(/http\(s\) address/)
    expect(await client.call('models.settings.set', { ollamaRegistry: null })).toMatchObject({ ok: true, value: { ollamaRegistry: null } })
  })

  it('a password-mode browser client cannot change the registry, the hub mirror or the proxy; a loopback tab can', async () => {
    const remote = await start({ mode: 'browser', access: { password: 'a long access password', sessionKeys: new Set() } } as Partial<CoreOptions>)
    for (const patch of [{ ollamaRegistry: 'http://10.0.0.5:5000' }, { hubEndpoint: 'http://127.0.0.1:6000' }, { proxy: 'http://192.168.1.1:3128' }]) {
      const refused = await remote.client.call('models.settings.set', patch)
      expect(refused.ok).toBe(false)
      if (!refused.ok) {
        expect(refused.error.status).toBe(403)
        expect(refused.error.message).toMatch(/access password.*desktop app or a loopback browser session/)
      }
    }
    expect(await remote.client.call('models.settings.get', {})).toMatchObject({ ok: true, value: { ollamaRegistry: null, hubEndpoint: null, proxy: null } })
    const tab = await start({ mode: 'browser' })
    expect(await tab.client.call('models.settings.set', { ollamaRegistry: 'http://127.0.0.1:5000' })).toMatchObject({ ok: true })
  })
})
