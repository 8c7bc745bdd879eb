import type { OpenAICompatibleConfig } from '../config'
import { clamp, siliconCloudThinkingBudget } from '../payload-rules'
import { siliconCloudImageHook } from '../../images/compatible-hooks'

/** SiliconCloud: max tokens 1..16384; thinking budget 1..32768; 401/403 mapped in the generic error rules. */
export const siliconcloud: OpenAICompatibleConfig = {
  id: 'siliconcloud',
  baseURL: 'https://api.siliconflow.cn/v1',
  // SiliconCloud answers 403 for an empty balance or a model that needs verified identity.
  mapError: (facts) =>
    facts.status === 403 ? { errorType: 'ProviderBizError', message: '请检查 API Key 余额是否充足，或者是否在未实名认证的情况下使用了需要实名认证的模型' } : undefined,
  createImage: siliconCloudImageHook,
  embeddings: true,
  textToSpeech: true,
  speechToText: true,
  chatPayload(body, request) {
    if (typeof body.max_tokens === 'number') body.max_tokens = clamp(Math.round(body.max_tokens), 1, 16384)
    const thinking = request.thinking
    if (thinking) {
      body.enable_thinking = thinking.type !== 'disabled'
      if (thinking.type === 'enabled' && thinking.budget_tokens !== undefined) body.thinking_budget = siliconCloudThinkingBudget(thinking.budget_tokens)
    }
    return body
  }
}
