import type { ProviderCredentials } from './types'
import { throwRuntimeError } from './runtime-error'
import type { ErrorTypeName } from '../../shared/errors/catalogue'

/**
 * Credential checks of providers.md §5, run before any network call. Each throws
 * AppErrorException with the named error; none ever echoes a key.
 */

/** Every provider needs an API key (InvalidProviderAPIKey), except keyless local servers. */
export function requireApiKey(credentials: ProviderCredentials, provider: string, errorType: ErrorTypeName = 'InvalidProviderAPIKey'): string {
  const key = credentials.apiKey?.trim()
  if (!key) throwRuntimeError(errorType, `No API key is set for ${provider}.`, provider)
  return key
}

/** Azure and friends: key and base URL both required. */
export function requireKeyAndBaseURL(credentials: ProviderCredentials, provider: string): { apiKey: string; baseURL: string } {
  const apiKey = requireApiKey(credentials, provider)
  const baseURL = credentials.baseURL?.trim()
  if (!baseURL) throwRuntimeError('InvalidProviderAPIKey', `${provider} needs both an API key and a base URL.`, provider)
  return { apiKey, baseURL }
}

/** Bedrock: access key id and secret both required (InvalidBedrockCredentials). */
export function requireBedrockCredentials(credentials: ProviderCredentials, provider = 'bedrock'): void {
  if (!credentials.accessKeyId?.trim() || !credentials.secretAccessKey?.trim())
    throwRuntimeError('InvalidBedrockCredentials', 'Bedrock needs both an access key id and a secret access key.', provider)
}

/** Cloudflare: a base URL or an account id. */
export function requireCloudflareTarget(credentials: ProviderCredentials, provider = 'cloudflare'): void {
  if (!credentials.baseURL?.trim() && !credentials.accountId?.trim())
    throwRuntimeError('InvalidProviderAPIKey', 'Cloudflare needs a base URL or an account id.', provider)
}

/** A base URL that must parse (Ollama: InvalidOllamaArgs). Returns it without a trailing slash. */
export function requireValidURL(url: string | undefined, provider: string, errorType: ErrorTypeName): string {
  try {
    const parsed = new URL(url ?? '')
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('protocol')
    return parsed.toString().replace(/\/+$/, '')
  } catch {
    return throwRuntimeError(errorType, `The base URL of ${provider} is not a valid http(s) URL.`, provider)
  }
}
