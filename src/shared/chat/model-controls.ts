/**
 * Which chat controls a model offers, derived from its catalogue entry (extendParams,
 * abilities, settings.searchImpl) and the provider rules of providers.md §5. One function
 * the composer, the agent settings and the core's request builder all read, so a control is
 * shown exactly when the request will honour it.
 */

export interface ModelControlInput {
  providerId: string
  id: string
  extendParams?: readonly string[]
  abilities?: { search?: boolean; reasoning?: boolean }
  searchImpl?: 'params' | 'internal'
  maxOutput?: number
}

export interface BudgetBounds {
  min: number
  max: number
  step: number
  default: number
}

export interface ModelControls {
  /** A thinking on/off switch; `defaultOn` is what the request gets when the user chose nothing. */
  thinking?: { defaultOn: boolean }
  /** The budget slider with the model's own bounds (providers.md §5 "Thinking budgets"). */
  budget?: BudgetBounds
  /** Reasoning effort values the model takes. */
  effort?: readonly string[]
  /** Anthropic-style prompt caching switch (`disableContextCaching`); on by default. */
  caching?: boolean
  /** The provider's own web search can be asked for (`enabledSearch`). */
  search?: boolean
}

/** Providers that search on their own when asked (providers.md §5). */
export const BUILTIN_SEARCH_PROVIDERS: ReadonlySet<string> = new Set([
  'moonshot',
  'spark',
  'stepfun',
  'zhipu',
  'wenxin',
  'qwen',
  'openrouter',
  'xai',
  'anthropic',
  'google',
  'vertexai'
])

const VOLCENGINE_THINKING = ['thinking-vision-pro', 'thinking-pro-m', 'doubao-seed-1-6', 'doubao-1-5-ui-tars']
const qwenThinks = (model: string) => model.includes('-thinking') || /^(qwen3|qwen-turbo|qwen-plus)/.test(model)

/** Gemini budgets by family (providers.md §5): 2.5-pro 128..32768, flash-lite 512..24576, others ≤ 24576. */
function geminiBudget(model: string): { bounds: BudgetBounds; canTurnOff: boolean } {
  if (/2\.5-pro/.test(model)) return { bounds: { min: 128, max: 32768, step: 128, default: 8192 }, canTurnOff: false }
  if (/flash-lite/.test(model)) return { bounds: { min: 512, max: 24576, step: 512, default: 8192 }, canTurnOff: true }
  return { bounds: { min: 0, max: 24576, step: 256, default: 8192 }, canTurnOff: true }
}

/** Claude: up to max output minus one, default 1024 (providers.md §5). */
const claudeBudget = (maxOutput?: number): BudgetBounds => ({ min: 1024, max: Math.max(1024, (maxOutput ?? 64_000) - 1), step: 1024, default: 1024 })

const EFFORT_SETS: Record<string, readonly string[]> = {
  reasoningEffort: ['low', 'medium', 'high'],
  gpt5ReasoningEffort: ['minimal', 'low', 'medium', 'high'],
  gpt5_1ReasoningEffort: ['none', 'low', 'medium', 'high'],
  gpt5_2ReasoningEffort: ['none', 'low', 'medium', 'high', 'xhigh'],
  effort: ['low', 'medium', 'high']
}

export function modelControls(model: ModelControlInput): ModelControls {
  const params = new Set(model.extendParams ?? [])
  const provider = model.providerId
  const id = model.id.toLowerCase()
  const controls: ModelControls = {}
  const gemini = provider === 'google' || provider === 'vertexai' || id.includes('gemini')

  if (params.has('thinkingBudget') && gemini) {
    const g = geminiBudget(id)
    controls.budget = g.bounds
    if (g.canTurnOff) controls.thinking = { defaultOn: true }
  }
  if (params.has('enableReasoning') || params.has('enableAdaptiveThinking')) controls.thinking = { defaultOn: false }
  if (params.has('reasoningBudgetToken')) {
    if (provider === 'siliconcloud') controls.budget = { min: 1, max: 32768, step: 512, default: 4096 }
    else if (provider === 'openrouter') controls.budget = { min: 1, max: Math.max(1, (model.maxOutput ?? 32000) - 1), step: 512, default: 1024 }
    else if (provider === 'anthropic' || provider === 'bedrock' || id.includes('claude')) controls.budget = claudeBudget(model.maxOutput)
    else controls.budget = { min: 1, max: Math.max(1, (model.maxOutput ?? 32768) - 1), step: 512, default: 1024 }
    controls.thinking ??= { defaultOn: false }
  }
  // Models that take `enable_thinking` by provider rule (providers.md §5), whatever the catalogue lists.
  if (provider === 'qwen' && qwenThinks(id)) {
    controls.thinking = { defaultOn: id.includes('-thinking') }
    controls.budget ??= { min: 1, max: Math.max(1, (model.maxOutput ?? 32768) - 1), step: 512, default: 4096 }
  }
  if (provider === 'volcengine' && VOLCENGINE_THINKING.some((k) => id.includes(k))) controls.thinking = { defaultOn: true }
  if (provider === 'siliconcloud' && (params.has('enableReasoning') || model.abilities?.reasoning)) {
    controls.thinking ??= { defaultOn: false }
    controls.budget ??= { min: 1, max: 32768, step: 512, default: 4096 }
  }

  for (const name of params) {
    const set = EFFORT_SETS[name] ?? (/ReasoningEffort$/i.test(name) ? EFFORT_SETS['reasoningEffort'] : undefined)
    if (set) {
      controls.effort = set
      break
    }
  }
  if (params.has('disableContextCaching')) controls.caching = true
  // `internal`: the model searches by itself (e.g. *-search-preview); nothing to switch.
  if (model.searchImpl !== 'internal' && (model.abilities?.search || BUILTIN_SEARCH_PROVIDERS.has(provider))) controls.search = true
  return controls
}

/** A budget the model accepts: inside its bounds, on its step grid from the minimum. */
export function clampBudget(value: number, bounds: BudgetBounds): number {
  if (!Number.isFinite(value)) return bounds.default
  return Math.min(bounds.max, Math.max(bounds.min, Math.round(value)))
}
