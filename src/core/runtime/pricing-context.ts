import type { ChatPricingContext } from '../../shared/pricing/lookup-params'
import type { CacheControl, ChatRequest } from './types'

/** The longest cache lifetime a client's breakpoints ask for: cache writes are priced by it. */
function cacheTtlOf(request: Pick<ChatRequest, 'messages' | 'tools'>): ChatPricingContext['cacheTtl'] {
  const marks: CacheControl[] = []
  for (const m of request.messages ?? []) {
    if (m.cache_control) marks.push(m.cache_control)
    if (Array.isArray(m.content)) for (const p of m.content) if (p.type === 'text' && p.cache_control) marks.push(p.cache_control)
  }
  for (const t of request.tools ?? []) if (t.cache_control) marks.push(t.cache_control)
  if (marks.length === 0) return undefined
  return marks.some((c) => c.ttl === '1h') ? '1h' : '5m'
}

/** What a chat request tells the pricing about lookup keys: the model, whether thinking was asked for, the cache lifetime. */
export function pricingContextOf(request: Pick<ChatRequest, 'model' | 'thinking'> & Partial<Pick<ChatRequest, 'messages' | 'tools'>>): ChatPricingContext {
  const thinking = request.thinking?.type
  const cacheTtl = cacheTtlOf({ messages: request.messages ?? [], ...(request.tools ? { tools: request.tools } : {}) })
  // Adaptive thinking may or may not think: the usage's reasoning tokens say whether it did.
  return { modelId: request.model, ...(thinking && thinking !== 'adaptive' ? { thinking } : {}), ...(cacheTtl ? { cacheTtl } : {}) }
}
