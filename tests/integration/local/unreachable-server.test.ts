import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadProviderModels } from '../../../src/shared/catalogue/loader'
import { closedPortUrl } from '../../fixtures/fake-ollama'
import { ok, startTestCore, type TestCore } from '../test-core'

// A local server's models are what the server has. When it cannot be reached, neither Settings
// nor any picker lists the catalogue's entries for it as if they were installed there.
let app: TestCore
let client: TestCore['client']
let closed: string

beforeAll(async () => {
  closed = await closedPortUrl()
  app = await startTestCore('sb-local-down-')
  client = app.client
  for (const kind of ['ollama', 'lmstudio', 'vllm', 'xinference'] as const) ok(await client.call('local.setBaseUrl', { kind, baseUrl: closed }))
})

afterAll(() => app.close())

describe('a local server that cannot be reached', () => {
  it.each(['ollama', 'lmstudio', 'vllm', 'xinference'])('%s lists none of the catalogue models as its own', async (id) => {
    expect((await loadProviderModels(id)).length).toBeGreaterThan(0)
    const models = ok(await client.call('providers.models', { providerId: id }))
    expect(models.filter((m) => m.source === 'builtin').map((m) => m.id)).toEqual([])
    expect(models).toEqual([])
  })

  it('says so with the address it tried, and the pickers (even the full one) offer nothing of it', async () => {
    const { providers, picker } = ok(await client.call('providers.list', {}))
    const ollama = providers.find((p) => p.id === 'ollama')!
    expect(ollama).toMatchObject({ local: true, running: false, available: false, serverAddress: closed })
    expect(picker.some((g) => g.provider.id === 'ollama')).toBe(false)
    const all = ok(await client.call('providers.list', { all: true })).picker
    for (const id of ['ollama', 'lmstudio', 'vllm', 'xinference']) expect(all.find((g) => g.provider.id === id)?.models ?? []).toEqual([])
  })

  it('Fetch model list answers that the server is not reachable, and keeps no list', async () => {
    const fetched = await client.call('providers.fetchModels', { providerId: 'ollama' })
    expect(fetched.ok).toBe(false)
    expect(ok(await client.call('providers.models', { providerId: 'ollama' }))).toEqual([])
  })
})
