import { AppErrorException } from '../../shared/errors/app-error'
import { openAICompatibleConfig } from './openai-compatible/create-runtime'
import { createProviderRuntime } from './registry'
import { runtimeError } from './runtime-error'
import type { ProviderCredentials, ProviderRuntime } from './types'
import { envCredentialsOf } from './provider-specs'
import { customProviderId, isCustomProviderId } from '../../shared/data/custom-provider'
import { defaultDataDir } from '../store/data-dir'

/** `<PROVIDER>_API_KEY`: the provider id upper-cased, anything but letters and digits as `_`. */
export const envKeyName = (providerId: string, suffix = 'API_KEY'): string => `${providerId.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_${suffix}`

export interface KeySourceOptions {
  providerId: string
  env: NodeJS.ProcessEnv
  /** `--api-key-env VAR`: read the key from this variable only. */
  apiKeyEnv?: string
  /** Reads the OS keychain (src/core/secrets); absent in tests or when no store exists. */
  keychain?: (providerId: string) => Promise<string | undefined>
}

export interface ResolvedKey {
  apiKey?: string
  /** Where it came from, for messages (never the key itself). */
  source: 'flag-env' | 'env' | 'keychain' | 'none'
}

/**
 * Where a CLI call finds its key: `--api-key-env VAR`, else `<PROVIDER>_API_KEY`, else the OS
 * keychain entry named after the provider. Keyless local servers skip the keychain (no
 * unlock prompt for a server that needs no key).
 */
export async function resolveProviderKey(options: KeySourceOptions): Promise<ResolvedKey> {
  if (options.apiKeyEnv) {
    const value = options.env[options.apiKeyEnv]?.trim()
    if (!value) throw new AppErrorException(runtimeError('InvalidProviderAPIKey', `The environment variable ${options.apiKeyEnv} (from --api-key-env) is not set.`, options.providerId))
    return { apiKey: value, source: 'flag-env' }
  }
  const fromEnv = options.env[envKeyName(options.providerId)]?.trim()
  if (fromEnv) return { apiKey: fromEnv, source: 'env' }
  // A custom provider's key is optional but still kept in the keychain when the user gave one.
  if ((openAICompatibleConfig(options.providerId).keyless && !isCustomProviderId(options.providerId)) || !options.keychain) return { source: 'none' }
  try {
    const stored = await options.keychain(options.providerId)
    if (stored) return { apiKey: stored, source: 'keychain' }
  } catch {
    // No keychain here: the runtime reports the missing key with its own named error.
  }
  return { source: 'none' }
}

/** Reads one provider key from the OS keychain through src/core/secrets, or undefined when there is no store. */
export async function keychainKey(providerId: string): Promise<string | undefined> {
  const { Secrets } = await import('../secrets/index')
  const secrets = await Secrets.open({ timeoutMs: 3000 })
  if (secrets.status.backend !== 'keychain') return undefined
  return secrets.readForRuntime(providerId)
}

/** `provider/model` → parts; the model may itself contain slashes (openrouter/openai/gpt-4o). */
export function parseTarget(target: string | undefined): { providerId: string; model: string } | undefined {
  if (!target) return undefined
  const slash = target.indexOf('/')
  if (slash <= 0 || slash === target.length - 1) return undefined
  return { providerId: target.slice(0, slash), model: target.slice(slash + 1) }
}

/** The CLI names a custom provider `custom:<id>`; inside the app its provider id is `custom-<id>`. */
export const cliProviderId = (providerId: string): string => (providerId.startsWith('custom:') ? customProviderId(providerId.slice('custom:'.length)) : providerId)

/** A custom provider's address as the app's data folder keeps it (`--data-dir`, else the app's folder). */
async function customBaseURL(providerId: string, flags: Map<string, string | true>, env: NodeJS.ProcessEnv): Promise<string> {
  const flag = flags.get('data-dir')
  const dataDir = typeof flag === 'string' ? flag : defaultDataDir(env)
  const { readCustomProviders } = await import('../store/read-custom-providers')
  const found = readCustomProviders(dataDir).find((c) => customProviderId(c.slug) === providerId)
  if (!found)
    throw new AppErrorException(
      runtimeError('UnknownProvider', `No custom provider ${providerId.replace('custom-', 'custom:')} in the data folder ${dataDir}: add it in Settings → Providers, or pass --base-url.`, providerId)
    )
  return found.baseUrl
}

/**
 * The runtime a CLI command uses: key from `--api-key-env` / `<PROVIDER>_API_KEY` / keychain,
 * base URL from `--base-url` or `<PROVIDER>_BASE_URL` (a custom provider's from the data folder).
 * Throws AppErrorException for bad credentials.
 */
export async function runtimeForCli(target: string, flags: Map<string, string | true>, env: NodeJS.ProcessEnv, keychain = keychainKey): Promise<ProviderRuntime> {
  const providerId = cliProviderId(target)
  const apiKeyEnv = flags.get('api-key-env')
  const key = await resolveProviderKey({ providerId, env, apiKeyEnv: typeof apiKeyEnv === 'string' ? apiKeyEnv : undefined, keychain })
  const baseURL = flags.get('base-url')
  const extra = envCredentialsOf(providerId, env)
  const credentials: ProviderCredentials = { ...extra }
  if (key.apiKey) credentials.apiKey = key.apiKey
  let url = typeof baseURL === 'string' ? baseURL : (env[envKeyName(providerId, 'BASE_URL')] ?? extra.baseURL)
  if (!url && isCustomProviderId(providerId)) url = await customBaseURL(providerId, flags, env)
  if (url) credentials.baseURL = url
  return createProviderRuntime(providerId, credentials)
}
