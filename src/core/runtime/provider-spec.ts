import type { CredentialField } from '../../shared/bridge/procedures/providers'
import type { ErrorTypeName } from '../../shared/errors/catalogue'
import type { ProviderErrorRule } from './errors/map-provider-error'
import type { OpenAICompatibleConfig } from './openai-compatible/config'
import type { NativeApi, ProviderCredentials, ProviderFactory } from './types'

/** A credential beyond the API key (providers.md §5), and where the CLI finds it in the environment. */
export interface CredentialFieldSpec extends Pick<CredentialField, 'name' | 'secret' | 'required'> {
  /** Environment variables read for it, first set wins (BEDROCK_REGION before AWS_REGION). */
  env: readonly string[]
}

export type { ProviderErrorRule }

/**
 * Everything the app knows about one provider, in one place. The card facts (name, default
 * base URL, key URL, sdkType) are the catalogue card's, by id: `getProviderCard(spec.id)`.
 * Settings, the CLI's environment lookup and error mapping all read from here
 * (./provider-specs).
 */
export interface ProviderSpec {
  id: string
  /** Whether the API key is the credential (false: Bedrock and Vertex AI use `fields`). */
  usesApiKey: boolean
  /** Credentials beyond the key, stored in the keychain as `<id>.<name>`. */
  fields: readonly CredentialFieldSpec[]
  /** Environment credentials that are more than a variable per field (a service-account file). */
  envCredentials?(env: NodeJS.ProcessEnv): Partial<ProviderCredentials>
  /** The provider's own error rules (status/message → catalogue error), before the generic mapping. */
  mapError?: ProviderErrorRule
  /** What an unmatched HTTP failure becomes instead of the status buckets (Google: ProviderBizError). */
  errorFallback?: ErrorTypeName
  /**
   * The API whose provider-run tools and blocks its runtime takes unchanged for a model (a
   * request's `nativeTools`): the local API passes a client's server tools on only to such a
   * provider and model.
   */
  nativeApi?(model: string): NativeApi | undefined
  /** How its runtime is built: a native adapter, or the OpenAI-compatible one with this config. */
  runtime: { factory: ProviderFactory } | { compatible: OpenAICompatibleConfig }
}

/** A native provider's spec with the defaults filled in (an API key, no extra fields). */
export function nativeSpec(spec: Partial<ProviderSpec> & Pick<ProviderSpec, 'id'> & { factory: ProviderFactory }): ProviderSpec {
  const { factory, ...rest } = spec
  return { usesApiKey: true, fields: [], ...rest, runtime: { factory } }
}

/** Credentials from the environment: each field's variables, then the spec's own hook. */
export function credentialsFromEnv(spec: ProviderSpec | undefined, env: NodeJS.ProcessEnv): Partial<ProviderCredentials> {
  if (!spec) return {}
  const out: Partial<ProviderCredentials> = {}
  for (const field of spec.fields) {
    const value = field.env.map((name) => env[name]?.trim()).find(Boolean)
    if (value) out[field.name] = value
  }
  return { ...out, ...spec.envCredentials?.(env) }
}
