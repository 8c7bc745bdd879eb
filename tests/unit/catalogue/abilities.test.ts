import { describe, expect, it } from 'vitest'
import { ABILITY_KEYWORDS, detectAbilities } from '../../../src/shared/catalogue/ability-keywords'
import { matchesKeywords } from '../../../src/shared/catalogue/keyword-match'
import { inferProviderFromModelId } from '../../../src/shared/catalogue/provider-inference'

describe('ability detection (product.md §5)', () => {
  it('works on the lower-cased id', () => {
    expect(matchesKeywords('GPT-4O', ['gpt-4o'])).toBe(true)
  })
  it('a plain keyword is a substring match', () => {
    expect(matchesKeywords('my-gpt-4o-copy', ['gpt-4o'])).toBe(true)
  })
  it('a ^ keyword is a prefix match', () => {
    expect(matchesKeywords('o1-mini', ['^o1'])).toBe(true)
    expect(matchesKeywords('turbo1-o1', ['^o1'])).toBe(false)
  })
  it('a ! keyword excludes, whatever else matches', () => {
    expect(matchesKeywords('gemini-2.0-flash-image', ['gemini', '!-image'])).toBe(false)
    expect(matchesKeywords('gemini-2.0-flash', ['gemini', '!-image'])).toBe(true)
  })
  it('functionCall and vision need a match and no exclusion; reasoning only a match (openai excludes audio)', () => {
    expect(ABILITY_KEYWORDS.openai.exclude).toContain('audio')
    expect(detectAbilities('gpt-4o', 'openai')).toEqual({ functionCall: true, vision: true, reasoning: false })
    expect(detectAbilities('gpt-4o-audio-preview', 'openai')).toEqual({ functionCall: false, vision: false, reasoning: false })
    expect(detectAbilities('o3-mini-audio', 'openai').reasoning).toBe(true)
  })
  it('has tables for the twelve providers of the spec', () => {
    expect(Object.keys(ABILITY_KEYWORDS).sort()).toEqual(
      ['anthropic', 'deepseek', 'google', 'llama', 'moonshot', 'openai', 'qwen', 'v0', 'volcengine', 'xai', 'zeroone', 'zhipu'].sort()
    )
  })
  it('uses the table of the provider inferred from the id when none is given', () => {
    expect(detectAbilities('deepseek-reasoner').reasoning).toBe(true)
    expect(detectAbilities('claude-3-5-sonnet-latest')).toMatchObject({ functionCall: true, vision: true })
    expect(detectAbilities('qwen-vl-max').vision).toBe(true)
  })
})

describe('provider inference from id (product.md §5, default openai)', () => {
  const table: Array<[string, string]> = [
    ['claude-3-opus', 'anthropic'],
    ['deepseek-chat', 'deepseek'],
    ['gemini-1.5-pro', 'google'],
    ['imagen-4.0-generate', 'google'],
    ['llama-3.1-8b', 'llama'],
    ['llava-v1.6', 'llama'],
    ['moonshot-v1-8k', 'moonshot'],
    ['kimi-k2', 'moonshot'],
    ['o1-preview', 'openai'],
    ['o3-mini', 'openai'],
    ['o4-mini', 'openai'],
    ['gpt-4o', 'openai'],
    ['qwen-max', 'qwen'],
    ['qwq-32b', 'qwen'],
    ['qvq-72b', 'qwen'],
    ['v0-1.5-md', 'v0'],
    ['doubao-pro-32k', 'volcengine'],
    ['grok-2', 'xai'],
    ['yi-lightning', 'zeroone'],
    ['glm-4-plus', 'zhipu'],
    ['mistral-large', 'openai']
  ]
  it.each(table)('%s → %s', (id, provider) => {
    expect(inferProviderFromModelId(id)).toBe(provider)
  })
  it('rows are tried in the spec order (deepseek before llama)', () => {
    expect(inferProviderFromModelId('deepseek-r1-distill-llama-70b')).toBe('deepseek')
  })
})
