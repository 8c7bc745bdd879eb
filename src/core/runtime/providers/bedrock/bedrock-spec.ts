import { nativeSpec } from '../../provider-spec'
import { createBedrockRuntime } from './bedrock-runtime'

/**
 * Bedrock: an AWS key pair instead of an API key. From the environment, the standard AWS
 * variables, or BEDROCK_-prefixed ones when a second account is meant for Bedrock only.
 */
export const bedrockSpec = nativeSpec({
  id: 'bedrock',
  factory: createBedrockRuntime,
  usesApiKey: false,
  fields: [
    { name: 'accessKeyId', secret: true, required: true, env: ['BEDROCK_ACCESS_KEY_ID', 'AWS_ACCESS_KEY_ID'] },
    { name: 'secretAccessKey', secret: true, required: true, env: ['BEDROCK_SECRET_ACCESS_KEY', 'AWS_SECRET_ACCESS_KEY'] },
    { name: 'sessionToken', secret: true, required: false, env: ['BEDROCK_SESSION_TOKEN', 'AWS_SESSION_TOKEN'] },
    { name: 'region', secret: false, required: false, env: ['BEDROCK_REGION', 'AWS_REGION', 'AWS_DEFAULT_REGION'] }
  ]
})
