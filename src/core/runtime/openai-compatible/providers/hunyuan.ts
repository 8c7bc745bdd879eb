import type { OpenAICompatibleConfig } from '../config'
import { openAIImagesWith, sizeFromDimensions } from '../../images/compatible-hooks'

export const hunyuan: OpenAICompatibleConfig = { id: 'hunyuan', baseURL: 'https://tokenhub.tencentmaas.com/v1', createImage: openAIImagesWith(sizeFromDimensions) }
