import type { ProviderCredentials } from '../../types'

/**
 * Bedrock credentials from the environment, for the CLI and headless use: the standard AWS
 * variables, or BEDROCK_-prefixed ones when a second account is meant for Bedrock only.
 */
export function bedrockCredentialsFromEnv(env: NodeJS.ProcessEnv): Partial<ProviderCredentials> {
  const pick = (...names: string[]) => names.map((n) => env[n]?.trim()).find(Boolean)
  const out: Partial<ProviderCredentials> = {}
  const accessKeyId = pick('BEDROCK_ACCESS_KEY_ID', 'AWS_ACCESS_KEY_ID')
  const secretAccessKey = pick('BEDROCK_SECRET_ACCESS_KEY', 'AWS_SECRET_ACCESS_KEY')
  const sessionToken = pick('BEDROCK_SESSION_TOKEN', 'AWS_SESSION_TOKEN')
  const region = pick('BEDROCK_REGION', 'AWS_REGION', 'AWS_DEFAULT_REGION')
  if (accessKeyId) out.accessKeyId = accessKeyId
  if (secretAccessKey) out.secretAccessKey = secretAccessKey
  if (sessionToken) out.sessionToken = sessionToken
  if (region) out.region = region
  return out
}
