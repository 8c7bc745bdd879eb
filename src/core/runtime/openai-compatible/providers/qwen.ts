import type { OpenAICompatibleConfig } from '../config'
import { keepOnly, qwenSupportsThinking } from '../payload-rules'
import { qwenImageHook } from '../../images/compatible-hooks'

/** Old chat models that reject presence_penalty. */
const NO_PRESENCE_PENALTY = [/^qwen-long/, /^qwen-max-longcontext/, /^qwen-vl-(plus|max)$/]

/**
 * Qwen (DashScope compatible mode): temperature in [0, 2); top_p in (0, 1) or (0, 1] for
 * vision models; presence penalty in [-2, 2] except old models; no frequency penalty;
 * search with strategy 'standard'; enable_thinking only for the thinking-capable models.
 */
export const qwen: OpenAICompatibleConfig = {
  id: 'qwen',
  baseURL: 'https://dashscope.aliyuncs.com/compatible-mode/v1',
  createImage: qwenImageHook,
  embeddings: true,
  chatPayload(body, request) {
    const vision = body.model.includes('-vl') || body.model.includes('qvq')
    keepOnly(body, 'temperature', (t) => t >= 0 && t < 2)
    keepOnly(body, 'top_p', (p) => p > 0 && (vision ? p <= 1 : p < 1))
    keepOnly(body, 'presence_penalty', (p) => p >= -2 && p <= 2)
    if (NO_PRESENCE_PENALTY.some((re) => re.test(body.model))) delete body.presence_penalty
    delete body.frequency_penalty
    if (request.enabledSearch) {
      body.enable_search = true
      body.search_options = { search_strategy: 'standard' }
    }
    if (qwenSupportsThinking(body.model)) {
      const thinking = request.thinking
      if (body.model.includes('-thinking')) body.enable_thinking = true
      else if (thinking) body.enable_thinking = thinking.type !== 'disabled'
      if (thinking?.type === 'enabled' && thinking.budget_tokens) body.thinking_budget = thinking.budget_tokens
    }
    return body
  }
}
