import { nativeSpec } from '../../provider-spec'
import { createAzureRuntime } from './azure-runtime'

/** Azure OpenAI: key, endpoint and an optional api-version (AZURE_API_VERSION). */
export const azureSpec = nativeSpec({
  id: 'azure',
  factory: createAzureRuntime,
  fields: [{ name: 'apiVersion', secret: false, required: false, env: ['AZURE_API_VERSION'] }]
})
