import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Core } from '../../../src/core'
import { MemoryBackend } from '../../../src/core/secrets'
import type { BridgeClient } from '../../../src/shared/bridge/client'
import type { Contract } from '../../../src/shared/bridge/contract'
import { closedPortUrl } from '../../fixtures/fake-ollama'
import { startTestCore } from '../test-core'

// One address per local server: the Local models page and Settings → Providers edit the same
// one, so models are pulled from and chats sent to the same server.
let core: Core
let client: BridgeClient<Contract>
beforeAll(async () => {
  const app = await startTestCore('sb-one-address-', { secrets: { backend: new MemoryBackend() } })
  core = app.core
  client = app.client
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
