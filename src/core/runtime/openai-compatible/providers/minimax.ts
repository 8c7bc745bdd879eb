import type { OpenAICompatibleConfig } from '../config'
import { halveTemperature, keepOnly, topPInsideUnit } from '../payload-rules'
import { minimaxImageHook } from '../../images/compatible-hooks'

/** MiniMax: temperature halved and dropped when ≤ 0; top_p only inside (0, 1), clamped 0.01..0.99. */
export const minimax: OpenAICompatibleConfig = {
  id: 'minimax',
  baseURL: 'https://api.minimaxi.com/v1',
  createImage: minimaxImageHook,
  chatPayload(body) {
    keepOnly(body, 'temperature', (t) => t > 0)
    halveTemperature(body)
    topPInsideUnit(body)
    return body
  }
}
