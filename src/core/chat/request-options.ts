import type { ModelParameters } from '../../shared/data/agent'
import { clampBudget, modelControls, type ModelControlInput } from '../../shared/chat/model-controls'
import type { ChosenOptions } from '../../shared/chat/message-meta'
import type { ChatMessage, ChatRequest } from '../runtime/types'

/** Where a search request goes: the provider's own search, or the app's search tool. */
export type SearchRoute = 'provider' | 'app-tool'

/**
 * Where the chat's search toggle goes. The app's own search tool (`web_search`,
 * run through the tool loop) is used when it is set up (`appSearch`) and either the model
 * has no search of its own or the agent chose the app's search (`searchImpl: internal`);
 * otherwise the provider's search where the model offers it; undefined: no search at all.
 */
export function chooseSearchRoute(model: ModelControlInput, params: ModelParameters, appSearch = false): SearchRoute | undefined {
  const native = modelControls(model).search === true
  const wantsApp = params.extra?.['searchImpl'] === 'internal'
  if (appSearch && (wantsApp || !native)) return 'app-tool'
  return native ? 'provider' : undefined
}

const EFFORTS = new Set(['minimal', 'low', 'medium', 'high'])

/**
 * The request for one reply: the agent's and conversation's parameters, with thinking, caching
 * and search applied only where the model offers them (model-controls), at the spec's defaults.
 * `chosen` is what the message shows as the user's choice.
 */
export function buildChatRequest(
  model: ModelControlInput,
  messages: ChatMessage[],
  params: ModelParameters,
  options: { search?: boolean; searchRoute?: SearchRoute } = {}
): { request: ChatRequest; chosen: ChosenOptions } {
  const request: ChatRequest = { model: model.id, messages, stream: true }
  if (params.temperature !== undefined) request.temperature = params.temperature
  if (params.topP !== undefined) request.top_p = params.topP
  if (params.maxOutputTokens !== undefined) request.max_tokens = params.maxOutputTokens
  if (params.presencePenalty !== undefined) request.presence_penalty = params.presencePenalty
  if (params.frequencyPenalty !== undefined) request.frequency_penalty = params.frequencyPenalty
  const verbosity = params.extra?.['textVerbosity']
  if (verbosity === 'low' || verbosity === 'medium' || verbosity === 'high') request.verbosity = verbosity

  const controls = modelControls(model)
  const chosen: ChosenOptions = {}
  if (controls.effort && params.reasoningEffort && controls.effort.includes(params.reasoningEffort)) {
    if (EFFORTS.has(params.reasoningEffort)) request.reasoning_effort = params.reasoningEffort as ChatRequest['reasoning_effort']
    chosen.effort = params.reasoningEffort
  } else if (!controls.effort && params.reasoningEffort && EFFORTS.has(params.reasoningEffort)) {
    // A model the catalogue does not describe: pass the agent's choice on as before.
    request.reasoning_effort = params.reasoningEffort as ChatRequest['reasoning_effort']
  }

  if (controls.thinking || controls.budget) {
    // Nothing is sent unless the user chose: the model's own default (spec) applies.
    const chose = params.thinking !== undefined || params.thinkingBudget !== undefined
    const on = params.thinking ?? (params.thinkingBudget !== undefined ? true : (controls.thinking?.defaultOn ?? true))
    chosen.thinking = on
    if (!on && chose && controls.thinking) request.thinking = { type: 'disabled' }
    if (on && chose) {
      const budget = controls.budget && params.thinkingBudget !== undefined ? clampBudget(params.thinkingBudget, controls.budget) : undefined
      request.thinking = { type: 'enabled', ...(budget !== undefined ? { budget_tokens: budget } : {}) }
      if (budget !== undefined) chosen.budget = budget
    }
  } else if (params.thinkingBudget !== undefined) {
    request.thinking = { type: 'enabled', budget_tokens: params.thinkingBudget }
    chosen.thinking = true
    chosen.budget = params.thinkingBudget
  }

  if (controls.caching) {
    const caching = params.contextCaching !== false
    request.enabledContextCaching = caching
    chosen.caching = caching
  }

  if (options.search) {
    // The route is decided once per reply by the chat service (it also offers the tool); alone,
    // this builds the provider's search where the model has one.
    const route = options.searchRoute ?? chooseSearchRoute(model, params)
    if (route === 'provider') request.enabledSearch = true
    if (route) {
      chosen.search = true
      chosen.searchRoute = route
    }
  }
  return { request, chosen }
}
