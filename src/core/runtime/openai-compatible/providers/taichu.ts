import type { OpenAICompatibleConfig } from '../config'
import { clamp } from '../payload-rules'

/** Taichu: temperature halved (at least 0.01); top_p halved within 0.1..9.9 (the spec's bounds). */
export const taichu: OpenAICompatibleConfig = {
  id: 'taichu',
  baseURL: 'https://cloud.zidongtaichu.com/maas/v1',
  chatPayload(body) {
    if (typeof body.temperature === 'number') body.temperature = Math.max(0.01, body.temperature / 2)
    if (typeof body.top_p === 'number') body.top_p = clamp(body.top_p / 2, 0.1, 9.9)
    return body
  }
}
