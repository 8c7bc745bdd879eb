import { nativeSpec } from '../../provider-spec'
import { createHuggingFaceRuntime, huggingFaceErrorType } from './huggingface-runtime'

/** Hugging Face's inference router: two stream error texts stand in for a status (providers.md §8). */
export const huggingfaceSpec = nativeSpec({
  id: 'huggingface',
  factory: createHuggingFaceRuntime,
  mapError: (facts) => {
    const errorType = huggingFaceErrorType(facts.message)
    return errorType ? { errorType } : undefined
  }
})
