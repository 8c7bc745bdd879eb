import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { CREDENTIAL_FIELD_NAMES } from '../../../src/shared/bridge/procedures/providers'
import { listProviderCards } from '../../../src/shared/catalogue/loader'
import { mapProviderError } from '../../../src/core/runtime/errors/map-provider-error'
import { openAICompatibleProviders } from '../../../src/core/runtime/openai-compatible/providers/index'
import { credentialFieldsOf, envCredentialsOf, errorRulesOf, providerSpecs, usesApiKey } from '../../../src/core/runtime/provider-specs'
import { hasNativeAdapter, resolveProviderFactory } from '../../../src/core/runtime/registry'
import { createOpenAICompatibleRuntime } from '../../../src/core/runtime/openai-compatible/create-runtime'

const apiError = (status: number, message: string) => Object.assign(new Error(message), { status, error: { message } })

describe('a provider is one definition (ProviderSpec)', () => {
  it('every catalogue provider has exactly one spec, and no spec lacks a catalogue card', () => {
    const cardIds = listProviderCards().map((c) => c.id).sort()
    expect([...providerSpecs().keys()].sort()).toEqual(cardIds)
    // Native and OpenAI-compatible never both claim an id.
    for (const id of Object.keys(openAICompatibleProviders)) expect(hasNativeAdapter(id), id).toBe(false)
  })

  it('every OpenAI-compatible config file under providers/ is registered (adding one is one file plus its line in the index)', () => {
    const dir = join(__dirname, '../../../src/core/runtime/openai-compatible/providers')
    const files = readdirSync(dir).filter((f) => f.endsWith('.ts') && f !== 'index.ts').map((f) => f.replace(/\.ts$/, '')).sort()
    expect(Object.keys(openAICompatibleProviders).sort()).toEqual(files)
    for (const [key, config] of Object.entries(openAICompatibleProviders)) expect(config.id).toBe(key)
  })

  it("the runtime a provider gets is its spec's: native factory or the OpenAI-compatible adapter", () => {
    for (const spec of providerSpecs().values()) {
      const factory = resolveProviderFactory(spec.id)
      if ('factory' in spec.runtime) expect(factory, spec.id).toBe(spec.runtime.factory)
      else expect(factory, spec.id).toBe(createOpenAICompatibleRuntime)
    }
  })

  it("credential fields and their names come from the specs (Settings' fields, the bridge's enum)", () => {
    const names = new Set([...providerSpecs().values()].flatMap((s) => s.fields.map((f) => f.name)))
    expect([...names].sort()).toEqual([...CREDENTIAL_FIELD_NAMES].sort())
    expect(credentialFieldsOf('bedrock').map((f) => f.name)).toEqual(['accessKeyId', 'secretAccessKey', 'sessionToken', 'region'])
    expect(usesApiKey('bedrock')).toBe(false)
    expect(usesApiKey('vertexai')).toBe(false)
    expect(usesApiKey('openai')).toBe(true)
    expect(usesApiKey('a-custom-endpoint')).toBe(true)
    expect(credentialFieldsOf('a-custom-endpoint')).toEqual([])
  })

  it('env names are those the spec fields declare: setting each declared variable fills its field', () => {
    for (const spec of providerSpecs().values()) {
      for (const field of spec.fields) {
        for (const name of field.env) {
          expect(envCredentialsOf(spec.id, { [name]: `v-${name}` })[field.name], `${spec.id} ${name}`).toBe(`v-${name}`)
        }
      }
    }
  })

  it("a provider's own error rule lives in its spec and is what mapProviderError applies", () => {
    // Same wire answer, different providers: only the spec's rule makes the difference.
    for (const [provider, status, expected] of [
      ['github', 401, 'InvalidGithubToken'],
      ['openai', 401, 'InvalidProviderAPIKey'],
      ['groq', 403, 'LocationNotSupportError'],
      ['anthropic', 403, 'LocationNotSupportError'],
      ['mistral', 403, 'PermissionDenied'],
      ['infiniai', 429, 'QuotaLimitReached'],
      ['siliconcloud', 403, 'ProviderBizError'],
      ['google', 418, 'ProviderBizError'],
      ['vertexai', 429, 'QuotaLimitReached']
    ] as const) {
      const spec = providerSpecs().get(provider)!
      const rule = spec.mapError?.({ status, message: 'Request not allowed' })
      const mapped = mapProviderError(apiError(status, 'Request not allowed'), { provider, rules: errorRulesOf(provider) })
      expect(mapped.errorType, provider).toBe(expected)
      if (rule) expect(mapped.errorType, provider).toBe(rule.errorType)
    }
  })
})
