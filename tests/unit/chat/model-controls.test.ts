import { describe, expect, it } from 'vitest'
import { loadProviderModels } from '../../../src/shared/catalogue/loader'
import { clampBudget, modelControls } from '../../../src/shared/chat/model-controls'
import { buildChatRequest } from '../../../src/core/chat/request-options'

// Issue 15: which thinking, caching and search controls a model offers, from its catalogue entry
// (the real catalogue files) and providers.md §5.
async function controlsOf(providerId: string, id: string) {
  const model = (await loadProviderModels(providerId as never)).find((m) => m.id === id)
  if (!model) throw new Error(`${providerId}/${id} is not in the catalogue`)
  return modelControls({ providerId, id, extendParams: model.settings?.extendParams, abilities: model.abilities, searchImpl: model.settings?.searchImpl, maxOutput: model.maxOutput })
}

describe('model controls from extend parameters', () => {
  it('Claude Sonnet 4.5: thinking off by default, budget 1024 .. max output − 1, caching switch, search', async () => {
    const c = await controlsOf('anthropic', 'claude-sonnet-4-5-20250929')
    expect(c.thinking).toEqual({ defaultOn: false })
    expect(c.budget).toMatchObject({ min: 1024, max: 63999, default: 1024 })
    expect(c.caching).toBe(true)
    expect(c.search).toBe(true)
  })

  it('Gemini 2.5 Pro cannot turn thinking off (128..32768); 2.5 Flash can (0..24576)', async () => {
    const pro = await controlsOf('google', 'gemini-2.5-pro')
    expect(pro.thinking).toBeUndefined()
    expect(pro.budget).toMatchObject({ min: 128, max: 32768 })
    const flash = await controlsOf('google', 'gemini-2.5-flash')
    expect(flash.thinking).toEqual({ defaultOn: true })
    expect(flash.budget).toMatchObject({ min: 0, max: 24576 })
  })

  it('Qwen takes enable_thinking for qwen-plus; -thinking models think by default', () => {
    expect(modelControls({ providerId: 'qwen', id: 'qwen-plus' }).thinking).toEqual({ defaultOn: false })
    expect(modelControls({ providerId: 'qwen', id: 'qwen3-235b-a22b-thinking-2507' }).thinking).toEqual({ defaultOn: true })
    expect(modelControls({ providerId: 'qwen', id: 'qwen-max' }).thinking).toBeUndefined()
  })

  it('SiliconCloud budgets run 1..32768 (providers.md §5)', () => {
    expect(modelControls({ providerId: 'siliconcloud', id: 'Qwen/Qwen3-8B', extendParams: ['enableReasoning', 'reasoningBudgetToken'] }).budget).toMatchObject({ min: 1, max: 32768 })
    expect(clampBudget(0, { min: 1, max: 32768, step: 1, default: 4096 })).toBe(1)
  })

  it('reasoning effort values follow the parameter; an internal searcher gets no switch', async () => {
    expect((await controlsOf('openai', 'gpt-5')).effort).toEqual(['minimal', 'low', 'medium', 'high'])
    expect((await controlsOf('openai', 'o3-mini')).effort).toEqual(['low', 'medium', 'high'])
    expect((await controlsOf('openai', 'gpt-4o-search-preview')).search).toBeUndefined()
    expect(modelControls({ providerId: 'moonshot', id: 'moonshot-v1-8k' }).search).toBe(true)
    expect(modelControls({ providerId: 'deepseek', id: 'deepseek-chat' }).search).toBeUndefined()
  })
})

describe('request options', () => {
  const claude = { providerId: 'anthropic', id: 'claude-sonnet-4-5-20250929', extendParams: ['disableContextCaching', 'enableReasoning', 'reasoningBudgetToken'], maxOutput: 64000 }
  it('sends nothing the user did not choose (the spec defaults apply in the runtime)', () => {
    const { request, chosen } = buildChatRequest(claude, [], {})
    expect(request.thinking).toBeUndefined()
    expect(request.enabledContextCaching).toBe(true)
    expect(request.enabledSearch).toBeUndefined()
    expect(chosen).toEqual({ thinking: false, caching: true })
  })
  it('a search asked of a model without it is not sent', () => {
    const { request, chosen } = buildChatRequest({ providerId: 'deepseek', id: 'deepseek-chat' }, [], { search: 'on' }, { search: true })
    expect(request.enabledSearch).toBeUndefined()
    expect(chosen.search).toBeUndefined()
  })
  it('an effort the model does not take is dropped', () => {
    const { request } = buildChatRequest({ providerId: 'openai', id: 'o3-mini', extendParams: ['reasoningEffort'] }, [], { reasoningEffort: 'minimal' })
    expect(request.reasoning_effort).toBeUndefined()
  })
})
