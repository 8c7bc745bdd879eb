import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Core } from '../../src/core'
import { MemoryBackend } from '../../src/core/secrets'
import type { BridgeClient } from '../../src/shared/bridge/client'
import type { Contract } from '../../src/shared/bridge/contract'
import type { Result } from '../../src/shared/errors/app-error'
import type { DownloadSnapshot } from '../../src/shared/models-library/types'
import { startFakeHfHub, sha256, type FakeHub } from '../fixtures/fake-hf-hub/server'
import { paddedModel } from '../fixtures/gguf-headers/write-gguf'
import { startTestCore } from './test-core'

const model = paddedModel(3 * 1024 * 1024, 31)
let hub: FakeHub
let core: Core
let client: BridgeClient<Contract>

beforeAll(async () => {
  hub = await startFakeHfHub([
    { id: 'acme/Open-GGUF', downloads: 3, files: [{ path: 'open-Q4_K_M.gguf', content: model }] },
    { id: 'acme/Gated-GGUF', gated: 'manual', files: [{ path: 'gated-Q4_K_M.gguf', content: model }] }
  ])
  ;({ core, client } = await startTestCore('sb-lib-bridge-', { secrets: { backend: new MemoryBackend() } }))
})
afterAll(async () => {
  await core.close()
  await hub.close()
})

describe('the model library over the bridge', () => {
  it('saves the hub mirror, searches it, and downloads as a task the window can follow', async () => {
    const set = await client.call('models.settings.set', { hubEndpoint: hub.url })
    expect(set).toMatchObject({ ok: true, value: { hubEndpoint: hub.url, hasHfToken: false } })
    // The proxy is its own field: setting it keeps the mirror, a bad address is refused with the form wanted, null clears it.
    expect(await client.call('models.settings.set', { proxy: 'http://127.0.0.1:3128' })).toMatchObject({ ok: true, value: { hubEndpoint: hub.url, proxy: 'http://127.0.0.1:3128' } })
    const bad = await client.call('models.settings.set', { proxy: 'socks5://127.0.0.1:1080' })
    expect(!bad.ok && bad.error.message).toMatch(/http:\/\/ or https:\/\//)
    expect(await client.call('models.settings.set', { proxy: null })).toMatchObject({ ok: true, value: { hubEndpoint: hub.url, proxy: null } })
    const found = await client.call('models.search', { query: 'acme', sources: ['hf'] })
    expect(found.ok && found.value.entries.map((e) => e.id)).toEqual(['acme/Open-GGUF', 'acme/Gated-GGUF'])
    const repo = await client.call('models.repo', { repo: 'acme/Open-GGUF' })
    expect(repo.ok && repo.value.files[0]).toMatchObject({ quant: 'Q4_K_M', sizeBytes: model.length })

    const started = await client.call('models.download.start', { ref: 'hf:acme/Open-GGUF:Q4_K_M' })
    if (!started.ok) throw new Error(started.error.message)
    const active = await client.call('tasks.active', { kind: 'download' })
    expect(active.ok && active.value.map((t) => t.meta)).toContainEqual({ downloadId: started.value.id, ref: 'hf:acme/Open-GGUF:open-Q4_K_M.gguf' })
    const events: DownloadSnapshot[] = []
    const end = await new Promise<Result<DownloadSnapshot | null>>((resolve) =>
      client.stream('models.download.watch', { id: started.value.id }, { onEvent: (s) => events.push(s), onEnd: resolve })
    )
    expect(end.ok).toBe(true)
    const last = events.at(-1)!
    expect(last.phase).toBe('success')
    expect(createHash('sha256').update(readFileSync(last.path!)).digest('hex')).toBe(sha256(model))
    const onDisk = await client.call('models.onDisk', {})
    expect(onDisk.ok && onDisk.value.some((m) => m.path === last.path && m.owner === 'switchboard')).toBe(true)
  })

  it('keeps the Hugging Face token in the keychain and uses it for gated repositories', async () => {
    const refused = await client.call('models.download.start', { ref: 'hf:acme/Gated-GGUF' })
    if (!refused.ok) throw new Error(refused.error.message)
    const failed = await core.services().modelsLibrary.library.downloads.wait(refused.value.id)
    expect(failed.error?.message).toMatch(/needs a Hugging Face token/)
    const set = await client.call('models.settings.set', { hfToken: hub.validToken })
    expect(set.ok && set.value.hasHfToken).toBe(true)
    expect(await core.services().secrets.readForRuntime('hf-token')).toBe(hub.validToken)
    const retried = await client.call('models.download.resume', { id: refused.value.id })
    if (!retried.ok) throw new Error(retried.error.message)
    expect((await core.services().modelsLibrary.library.downloads.wait(refused.value.id)).phase).toBe('success')
  })

  it('answers a bad reference and a missing repository with the library error and its fix', async () => {
    const bad = await client.call('models.download.start', { ref: 'hf:acme/Nope-GGUF' })
    expect(bad.ok).toBe(false)
    if (!bad.ok) {
      expect(bad.error.errorType).toBe('ModelLibraryError')
      expect(bad.error.message).toMatch(/no repository "acme\/Nope-GGUF"/)
    }
    const refused = await client.call('models.remove', { path: '/etc/hostname' })
    expect(refused.ok).toBe(false)
  })
})
