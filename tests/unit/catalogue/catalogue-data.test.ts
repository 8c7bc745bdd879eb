import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { CATALOGUE_PROVIDER_IDS, catalogueLoaders, providerCards } from '../../../catalogue/index'
import { providerCardSchema, providerCatalogueFileSchema } from '../../../src/shared/catalogue/schema'
import { REFERENCE_FACTS } from '../../fixtures/fixture-paths'

/** The reference the catalogue was generated from: any drift between the two shows here. */
const reference = JSON.parse(readFileSync(REFERENCE_FACTS, 'utf8')) as {
  providers: Array<Record<string, unknown> & { id: string; settings?: Record<string, unknown> }>
  models: Record<string, Array<Record<string, unknown> & { id: string }>>
}

// product.md §1 lists these 58 provider ids.
const SPEC_PROVIDER_IDS =
  'ai21, ai302, ai360, aihubmix, anthropic, azure, azureai, baichuan, bedrock, bfl, cloudflare, cohere, deepseek, fal, fireworksai, giteeai, github, google, groq, higress, huggingface, hunyuan, infiniai, internlm, jina, lmstudio, minimax, mistral, modelscope, moonshot, novita, nvidia, ollama, openai, openrouter, perplexity, ppio, qiniu, qwen, sambanova, search1api, sensenova, siliconcloud, spark, stepfun, taichu, tencentcloud, togetherai, upstage, v0, vertexai, vllm, volcengine, wenxin, xai, xinference, zeroone, zhipu'.split(
    ', '
  )

// The app's own providers (catalogue/source/own-providers.json): the built-in engine.
const OWN_PROVIDER_IDS = ['builtin']

// Provider settings the app sets over the reference's (catalogue/source/own-settings.json).
const ownSettings = JSON.parse(readFileSync(new URL('../../../catalogue/source/own-settings.json', import.meta.url), 'utf8')) as Record<string, Record<string, unknown>>

describe('catalogue data', () => {
  it('has a data file and a provider card for every provider id of product.md §1, and for the app\'s own', () => {
    expect([...CATALOGUE_PROVIDER_IDS].sort()).toEqual([...SPEC_PROVIDER_IDS, ...OWN_PROVIDER_IDS].sort())
    expect(providerCards.map((c) => c.id).sort()).toEqual([...SPEC_PROVIDER_IDS, ...OWN_PROVIDER_IDS].sort())
  })

  it('validates every file and card against the zod schemas', async () => {
    let models = 0
    for (const id of CATALOGUE_PROVIDER_IDS) {
      const file = await catalogueLoaders[id]()
      const parsed = providerCatalogueFileSchema.safeParse(file)
      expect(parsed.success ? '' : `${id}: ${JSON.stringify(parsed.error.issues.slice(0, 3))}`).toBe('')
      expect(file.providerId).toBe(id)
      models += file.models.length
    }
    for (const card of providerCards) {
      const parsed = providerCardSchema.safeParse(card)
      expect(parsed.success ? '' : `${card.id}: ${JSON.stringify(parsed.error.issues.slice(0, 3))}`).toBe('')
    }
    expect(models).toBe(1477)
  })

  it('matches the reference: per-provider counts, ids in order, and key fields', async () => {
    const drift: string[] = []
    const keyFields = ['displayName', 'type', 'contextWindowTokens', 'maxOutput', 'releasedAt', 'pricing', 'parameters', 'settings', 'config', 'maxDimension']
    for (const id of CATALOGUE_PROVIDER_IDS) {
      const ours = (await catalogueLoaders[id]()).models
      const theirs = reference.models[id] ?? []
      if (ours.length !== theirs.length) drift.push(`${id}: ${ours.length} models, reference ${theirs.length}`)
      if (ours.map((m) => m.id).join('\n') !== theirs.map((m) => m.id).join('\n')) drift.push(`${id}: ids differ`)
      theirs.forEach((ref, i) => {
        const m = ours[i] as unknown as Record<string, unknown> | undefined
        if (!m) return
        for (const field of keyFields) {
          const expected = field === 'type' ? (ref[field] ?? 'chat') : ref[field]
          if (JSON.stringify(sortDeep(m[field])) !== JSON.stringify(sortDeep(expected))) drift.push(`${id}/${ref.id}.${field}`)
        }
        if (m['enabled'] !== (ref['enabled'] === true)) drift.push(`${id}/${ref.id}.enabled`)
        if (JSON.stringify(sortDeep(m['abilities'])) !== JSON.stringify(sortDeep(ref['abilities'] ?? {}))) drift.push(`${id}/${ref.id}.abilities`)
      })
    }
    expect(drift).toEqual([])
  })

  it('matches the reference provider cards', () => {
    for (const ref of reference.providers) {
      const card = providerCards.find((c) => c.id === ref.id)!
      const s = { ...ref.settings, ...ownSettings[ref.id] }
      expect(card.name).toBe(ref['name'])
      expect(card.url).toBe(ref['url'])
      expect(card.defaultBaseURL).toBe(ref['defaultBaseURL'])
      expect(card.checkModel).toBe(ref['checkModel'])
      expect(card.apiKeyUrl).toBe(ref['apiKeyUrl'])
      expect(card.modelsUrl).toBe(ref['modelsUrl'])
      expect(card.sdkType).toBe(s['sdkType'])
      expect(card.showModelFetcher).toBe(s['showModelFetcher'] === true)
      expect(card.supportResponsesApi).toBe(s['supportResponsesApi'] === true)
      expect(card.proxyPlaceholder).toBe((s['proxyUrl'] as { placeholder?: string } | undefined)?.placeholder)
      expect(card.modelCount).toBe(reference.models[ref.id]?.length ?? 0)
    }
  })

  it('every local server offers "Fetch model list": its models are what it has', () => {
    for (const id of ['ollama', 'lmstudio', 'vllm', 'xinference']) expect([id, providerCards.find((c) => c.id === id)?.showModelFetcher]).toEqual([id, true])
  })

  it('ships no descriptions (ours to write, never copied)', async () => {
    for (const id of CATALOGUE_PROVIDER_IDS) {
      for (const m of (await catalogueLoaders[id]()).models) expect(m.description).toBeUndefined()
    }
  })

  it('keeps the catalogue free of Node imports (the renderer may load it)', () => {
    expect(readFileSync('catalogue/index.ts', 'utf8')).not.toMatch(/from ['"](node:|fs|path)/)
  })
})

function sortDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortDeep)
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sortDeep((value as Record<string, unknown>)[k])]))
  }
  return value
}
