import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCore, type Core } from '../../../src/core'
import { createInProcessClient } from '../../../src/core/bridge/in-process'
import { loadProviderModels } from '../../../src/shared/catalogue/loader'
import type { BridgeClient } from '../../../src/shared/bridge/client'
import type { Contract } from '../../../src/shared/bridge/contract'
import type { Result } from '../../../src/shared/errors/app-error'
import { closedPortUrl } from '../../fixtures/fake-ollama'

// A local server's models are what the server has. When it cannot be reached, neither Settings
// nor any picker lists the catalogue's entries for it as if they were installed there.
let core: Core
let client: BridgeClient<Contract>
let dataDir: string
let closed: string

const value = <T>(result: Result<T>): T => {
  if (!result.ok) throw new Error(`${result.error.errorType}: ${result.error.message}`)
  return result.value
}

beforeAll(async () => {
  closed = await closedPortUrl()
  dataDir = mkdtempSync(join(tmpdir(), 'sb-local-down-'))
  core = createCore({ dataDir, mode: 'test' })
  await core.context.init.start()
  client = createInProcessClient(core.router).client
  for (const kind of ['ollama', 'lmstudio', 'vllm', 'xinference'] as const) value(await client.call('local.setBaseUrl', { kind, baseUrl: closed }))
})

afterAll(async () => {
  await core.close()
  rmSync(dataDir, { recursive: true, force: true })
})

describe('a local server that cannot be reached', () => {
  it.each(['ollama', 'lmstudio', 'vllm', 'xinference'])('%s lists none of the catalogue models as its own', async (id) => {
    expect((await loadProviderModels(id)).length).toBeGreaterThan(0)
    const models = value(await client.call('providers.models', { providerId: id }))
    expect(models.filter((m) => m.source === 'builtin').map((m) => m.id)).toEqual([])
    expect(models).toEqual([])
  })

  it('says so with the address it tried, and the pickers (even the full one) offer nothing of it', async () => {
    const { providers, picker } = value(await client.call('providers.list', {}))
    const ollama = providers.find((p) => p.id === 'ollama')!
    expect(ollama).toMatchObject({ local: true, running: false, available: false, serverAddress: closed })
    expect(picker.some((g) => g.provider.id === 'ollama')).toBe(false)
    const all = value(await client.call('providers.list', { all: true })).picker
    for (const id of ['ollama', 'lmstudio', 'vllm', 'xinference']) expect(all.find((g) => g.provider.id === id)?.models ?? []).toEqual([])
  })

  it('Fetch model list answers that the server is not reachable, and keeps no list', async () => {
    const fetched = await client.call('providers.fetchModels', { providerId: 'ollama' })
    expect(fetched.ok).toBe(false)
    expect(value(await client.call('providers.models', { providerId: 'ollama' }))).toEqual([])
  })
})
