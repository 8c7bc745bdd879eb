import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Core } from '../../../src/core'
import { MemoryBackend } from '../../../src/core/secrets'
import { runtimeForCli } from '../../../src/core/runtime/key-source'
import type { BridgeClient } from '../../../src/shared/bridge/client'
import type { Contract } from '../../../src/shared/bridge/contract'
import { startTestCore, type TestCore } from '../test-core'

let app: TestCore
let core: Core
let client: BridgeClient<Contract>

beforeAll(async () => {
  app = await startTestCore('sb-prov-', { secrets: { backend: new MemoryBackend() } })
  core = app.core
  client = app.client
})
afterAll(() => app.close())

describe('provider credentials beyond a key', () => {
  it('Bedrock becomes available with its access key pair; secrets never come back, the region does', async () => {
    const before = await client.call('providers.list', {})
    const bedrock = before.ok ? before.value.providers.find((p) => p.id === 'bedrock') : undefined
    expect(bedrock?.usesApiKey).toBe(false)
    expect(bedrock?.available).toBe(false)
    await client.call('providers.setCredential', { providerId: 'bedrock', name: 'accessKeyId', value: 'AKIAEXAMPLEKEYID0001' })
    const half = await client.call('providers.setCredential', { providerId: 'bedrock', name: 'region', value: 'eu-west-1' })
    expect(half.ok && half.value.available).toBe(false)
    const full = await client.call('providers.setCredential', { providerId: 'bedrock', name: 'secretAccessKey', value: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' })
    if (!full.ok) throw new Error(full.error.message)
    expect(full.value.available).toBe(true)
    expect(full.value.enabled).toBe(true)
    const text = JSON.stringify(full.value)
    expect(text).not.toContain('AKIAEXAMPLEKEYID0001')
    expect(text).not.toContain('wJalrXUtnFEMI')
    expect(full.value.credentialFields.find((f) => f.name === 'region')?.value).toBe('eu-west-1')
    const credentials = await core.services().providers.credentials('bedrock')
    expect(credentials).toMatchObject({ accessKeyId: 'AKIAEXAMPLEKEYID0001', region: 'eu-west-1' })
  })

  it('refuses a field the provider does not take, naming it', async () => {
    const r = await client.call('providers.setCredential', { providerId: 'openai', name: 'accessKeyId', value: 'x' })
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.error.message).toMatch(/accessKeyId/)
  })

  it('the CLI reads Bedrock credentials from the AWS environment variables', async () => {
    const noKeychain = async () => undefined
    const missing = await runtimeForCli('bedrock', new Map(), {}, noKeychain).then(
      async (r) => {
        for await (const e of r.chat!({ model: 'anthropic.claude-3-haiku-20240307-v1:0', messages: [{ role: 'user', content: 'hi' }] })) if (e.type === 'error') return e.data.errorType
        return 'no error'
      },
      (e: { error?: { errorType: string } }) => e.error?.errorType
    )
    expect(missing).toBe('InvalidBedrockCredentials')
    const runtime = await runtimeForCli('bedrock', new Map(), { AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret', AWS_REGION: 'us-west-2' }, noKeychain)
    expect(runtime.chat).toBeTypeOf('function')
  })
})

describe('Fetch model list (issue 17)', () => {
  const list = (...ids: string[]) => ({ kind: 'json' as const, body: { object: 'list', data: ids.map((id) => ({ id, object: 'model', created: 1, owned_by: 'acme' })) } })

  it('says what is new and what was removed, and enables the new ones in one call', async () => {
    const { startFakeOpenAI } = await import('../../fixtures/fake-openai')
    const fake = await startFakeOpenAI()
    try {
      await client.call('providers.update', { providerId: 'openai', baseURL: fake.url })
      await client.call('providers.setKey', { providerId: 'openai', apiKey: 'sk-test-fetch-0001' })
      fake.setDefault('/models', list('gpt-4o-mini', 'ft:gpt-4o-mini:acme:one', 'ft:gpt-4o-mini:acme:two'))
      const first = await client.call('providers.fetchModels', { providerId: 'openai' })
      if (!first.ok) throw new Error(first.error.message)
      // gpt-4o-mini is built in: only the two fine-tunes are new.
      expect(first.value.added.sort()).toEqual(['ft:gpt-4o-mini:acme:one', 'ft:gpt-4o-mini:acme:two'])
      expect(first.value.removed).toEqual([])
      expect(first.value.listed).toBe(3)
      fake.setDefault('/models', list('gpt-4o-mini', 'ft:gpt-4o-mini:acme:two', 'ft:gpt-4o-mini:acme:three'))
      const second = await client.call('providers.fetchModels', { providerId: 'openai' })
      if (!second.ok) throw new Error(second.error.message)
      expect(second.value.added).toEqual(['ft:gpt-4o-mini:acme:three'])
      expect(second.value.removed).toEqual(['ft:gpt-4o-mini:acme:one'])
      const enabled = await client.call('providers.setModelsEnabled', { providerId: 'openai', modelIds: second.value.added, enabled: true })
      if (!enabled.ok) throw new Error(enabled.error.message)
      expect(enabled.value.find((m) => m.id === 'ft:gpt-4o-mini:acme:three')?.enabled).toBe(true)
    } finally {
      await fake.close()
    }
  })

  it('a local server’s fetched models are enabled: the server really has them', async () => {
    const { startFakeOpenAI } = await import('../../fixtures/fake-openai')
    const fake = await startFakeOpenAI()
    try {
      fake.setDefault('/models', list('acme-local-finetune-7b'))
      await client.call('providers.update', { providerId: 'lmstudio', baseURL: fake.url })
      const fetched = await client.call('providers.fetchModels', { providerId: 'lmstudio' })
      if (!fetched.ok) throw new Error(fetched.error.message)
      await fake.close()
      // Saving the address again drops the cached detection: the server is now seen stopped.
      await client.call('providers.update', { providerId: 'lmstudio', baseURL: fake.url })
      // Still offered once the server is gone (the stored list), unless the user switches it off.
      const models = await client.call('providers.models', { providerId: 'lmstudio' })
      if (!models.ok) throw new Error(models.error.message)
      expect(models.value.find((m) => m.id === 'acme-local-finetune-7b')?.enabled).toBe(true)
    } finally {
      await fake.close().catch(() => undefined)
    }
  })
})
