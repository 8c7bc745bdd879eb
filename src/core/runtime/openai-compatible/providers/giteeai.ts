import type { OpenAICompatibleConfig } from '../config'
import { openAIImagesWith, seedStepsCfg } from '../../images/compatible-hooks'

export const giteeai: OpenAICompatibleConfig = { id: 'giteeai', baseURL: 'https://ai.gitee.com/v1', createImage: openAIImagesWith(seedStepsCfg) }
