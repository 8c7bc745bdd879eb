import type { ChatPricingContext } from '../../shared/pricing/lookup-params'
import type { ChatRequest } from './types'

/** What a chat request tells the pricing about lookup keys: the model and whether thinking was asked for. */
export function pricingContextOf(request: Pick<ChatRequest, 'model' | 'thinking'>): ChatPricingContext {
  return { modelId: request.model, ...(request.thinking ? { thinking: request.thinking.type } : {}) }
}
