import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCore, type Core } from '../../../src/core'
import { createInProcessClient } from '../../../src/core/bridge/in-process'
import { MemoryBackend } from '../../../src/core/secrets'
import type { BridgeClient } from '../../../src/shared/bridge/client'
import type { Contract } from '../../../src/shared/bridge/contract'
import { closedPortUrl } from '../../fixtures/fake-ollama'

// One address per local server: the Local models page and Settings → Providers edit the same
// one, so models are pulled from and chats sent to the same server.
let core: Core
let client: BridgeClient<Contract>
beforeAll(async () => {
  core = createCore({ dataDir: mkdtempSync(join(tmpdir(), 'sb-one-address-')), mode: 'test', secrets: { backend: new MemoryBackend() } })
  await core.context.init.start()
  client = createInProcessClient(core.router).client
})
afterAll(() => core.close())

describe('one Ollama address', () => {
  it('the Local models page’s address is the one chats use, after Settings set another', async () => {
    const first = await closedPortUrl()
    const second = await closedPortUrl()
    expect((await client.call('providers.update', { providerId: 'ollama', baseURL: first })).ok).toBe(true)
    expect((await client.call('local.setBaseUrl', { kind: 'ollama', baseUrl: second })).ok).toBe(true)
    expect((await core.services().providers.credentials('ollama')).baseURL).toBe(second)
    const listed = await client.call('providers.list', {})
    expect(listed.ok && listed.value.providers.find((p) => p.id === 'ollama')?.baseURL).toBe(second)
  })

  it('Settings → Providers changes the Local models page’s address too', async () => {
    const third = await closedPortUrl()
    expect((await client.call('providers.update', { providerId: 'ollama', baseURL: third })).ok).toBe(true)
    expect(core.services().local.detection.baseUrl('ollama')).toBe(third)
    expect((await core.services().providers.credentials('ollama')).baseURL).toBe(third)
  })
})
