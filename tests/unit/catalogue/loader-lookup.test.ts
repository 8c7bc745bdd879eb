import { describe, expect, it } from 'vitest'
import { AppErrorException } from '../../../src/shared/errors/app-error'
import {
  getProviderCard,
  isCatalogueProviderId,
  listProviderCards,
  loadedProviderIds,
  loadMergedList,
  loadMergedProviderModels,
  loadProviderModels
} from '../../../src/shared/catalogue/loader'
import { findModel, getModelProperty, lookupModelProperty } from '../../../src/shared/catalogue/lookup'
import { toMergedModel } from '../../../src/shared/catalogue/merge'
import type { CatalogueModel, MergedModel } from '../../../src/shared/catalogue/types'

describe('lazy loading (product.md §1: model lists are loaded lazily by provider id)', () => {
  it('parses no provider file until one is asked for, then only that one', async () => {
    // This test file runs in its own fork, so the module cache starts empty.
    expect(loadedProviderIds()).toEqual([])
    expect(listProviderCards()).toHaveLength(59) // product.md §1's 58 and the built-in engine
    expect(loadedProviderIds()).toEqual([])
    const deepseek = await loadProviderModels('deepseek')
    expect(deepseek.length).toBeGreaterThan(0)
    expect(loadedProviderIds()).toEqual(['deepseek'])
  })

  it('shares one import between concurrent first calls', async () => {
    const [a, b] = await Promise.all([loadProviderModels('groq'), loadProviderModels('groq')])
    expect(a).toBe(b)
  })

  it('rejects an unknown provider id with a typed error naming it', async () => {
    expect(isCatalogueProviderId('nope')).toBe(false)
    const error = await loadProviderModels('nope').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(AppErrorException)
    expect((error as AppErrorException).error).toMatchObject({ errorType: 'UnknownProvider', provider: 'nope', status: 404 })
    expect((error as AppErrorException).error.message).toContain("'nope'")
    expect(() => getProviderCard('nope')).toThrow(AppErrorException)
  })
})

describe('merged flat list (product.md §1)', () => {
  it('carries providerId and source builtin on all 1,477 entries, enabled false unless true, abilities {}', async () => {
    const list = await loadMergedList()
    expect(list).toHaveLength(1477)
    for (const m of list) {
      expect(m.source).toBe('builtin')
      expect(isCatalogueProviderId(m.providerId)).toBe(true)
      expect(typeof m.enabled).toBe('boolean')
      expect(m.abilities).toBeTypeOf('object')
    }
    expect(new Set(list.map((m) => m.providerId)).size).toBe(58)
  })

  it('defaults enabled to false and missing abilities to {} for entries that lack them', () => {
    const bare = { id: 'x', displayName: 'X', type: 'chat' } as unknown as CatalogueModel
    expect(toMergedModel('openai', bare)).toMatchObject({ providerId: 'openai', source: 'builtin', enabled: false, abilities: {} })
    expect(toMergedModel('openai', { ...bare, enabled: true }).enabled).toBe(true)
  })

  it('one provider as merged entries', async () => {
    const list = await loadMergedProviderModels('openai')
    expect(list.every((m) => m.providerId === 'openai' && m.source === 'builtin')).toBe(true)
  })
})

describe('lookup helper (product.md §1)', () => {
  const entry = (id: string, providerId: string, extra: Partial<MergedModel> = {}): MergedModel => ({
    id,
    displayName: id,
    type: 'chat',
    enabled: false,
    abilities: {},
    providerId,
    source: 'builtin',
    ...extra
  })
  const list = [
    entry('gpt-4o', 'openai', { contextWindowTokens: 128000 }),
    entry('gpt-4o', 'azure', { contextWindowTokens: 64000 }),
    entry('flux-dev', 'bfl', { type: 'image' })
  ]

  it('returns the property of the provider-restricted entry', () => {
    expect(lookupModelProperty(list, 'gpt-4o', 'contextWindowTokens', 'azure')).toBe(64000)
  })
  it('falls back to the first entry with the same id from any provider', () => {
    expect(lookupModelProperty(list, 'gpt-4o', 'contextWindowTokens', 'github')).toBe(128000)
    expect(lookupModelProperty(list, 'flux-dev', 'type')).toBe('image')
    expect(findModel(list, 'gpt-4o', 'github')?.providerId).toBe('openai')
  })
  it("answers 'chat' for type and nothing for other properties when no entry matches", () => {
    expect(lookupModelProperty(list, 'unknown-model', 'type')).toBe('chat')
    expect(lookupModelProperty(list, 'unknown-model', 'contextWindowTokens')).toBeUndefined()
  })
  it('works over the lazy catalogue', async () => {
    expect(await getModelProperty('dall-e-3', 'type', 'openai')).toBe('image')
    expect(await getModelProperty('dall-e-3', 'type', 'github')).toBe('image')
    expect(await getModelProperty('no-such-model', 'type')).toBe('chat')
    expect(await getModelProperty('no-such-model', 'displayName', 'openai')).toBeUndefined()
  })
})
