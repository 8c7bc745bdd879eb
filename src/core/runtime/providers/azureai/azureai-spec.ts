import { nativeSpec } from '../../provider-spec'
import { createAzureAIRuntime } from './azureai-runtime'

/** Azure AI model inference: key and endpoint. */
export const azureaiSpec = nativeSpec({ id: 'azureai', factory: createAzureAIRuntime })
