import type { OpenAICompatibleConfig } from './openai-compatible/config'
import { openAICompatibleProviders } from './openai-compatible/providers/index'
import { credentialsFromEnv, type CredentialFieldSpec, type ProviderSpec } from './provider-spec'
import type { ProviderCredentials, ProviderFactory } from './types'
import type { ProviderErrorRules } from './errors/map-provider-error'
import { anthropicSpec } from './providers/anthropic/anthropic-spec'
import { azureSpec } from './providers/azure/azure-spec'
import { bedrockSpec } from './providers/bedrock/bedrock-spec'
import { cloudflareSpec } from './providers/cloudflare/cloudflare-spec'
import { googleSpec } from './providers/google/google-spec'
import { ollamaSpec } from './providers/ollama/ollama-spec'
import { vertexaiSpec } from './providers/vertexai/vertexai-spec'
import { bflSpec, falSpec } from './images/image-provider-specs'
import { builtinSpec } from './providers/builtin/builtin-spec'

/** Providers with their own (non-OpenAI-wire) adapter. */
const NATIVE_SPECS: readonly ProviderSpec[] = [anthropicSpec, azureSpec, bedrockSpec, cloudflareSpec, googleSpec, ollamaSpec, vertexaiSpec, bflSpec, falSpec, builtinSpec]

/** An OpenAI-compatible config is the whole spec of its provider: a key, no extra fields, its mapError hook. */
function compatibleSpec(config: OpenAICompatibleConfig): ProviderSpec {
  return {
    id: config.id,
    usesApiKey: true,
    fields: [],
    ...(config.mapError ? { mapError: config.mapError } : {}),
    ...(config.builtInTools ? { nativeApi: (model: string) => (config.builtInTools!(model) ? ('openai-responses' as const) : undefined) } : {}),
    runtime: { compatible: config }
  }
}

function buildSpecs(): Map<string, ProviderSpec> {
  const specs = new Map<string, ProviderSpec>()
  for (const spec of [...NATIVE_SPECS, ...Object.values(openAICompatibleProviders).map(compatibleSpec)]) {
    if (specs.has(spec.id)) throw new Error(`Two provider specs for ${spec.id}`)
    specs.set(spec.id, spec)
  }
  return specs
}

let specs: Map<string, ProviderSpec> | undefined
/** Every built-in provider's spec by id, built on first use (most commands need none of them). */
export function providerSpecs(): ReadonlyMap<string, ProviderSpec> {
  specs ??= buildSpecs()
  return specs
}

/** The spec of a built-in provider; undefined for a custom OpenAI-compatible id. */
export const providerSpec = (id: string): ProviderSpec | undefined => providerSpecs().get(id)

/** A built-in provider's own error rules, for mapping an error outside its runtime (a test, a log). */
export const errorRulesOf = (id: string): ProviderErrorRules => {
  const spec = providerSpec(id)
  return { mapError: spec?.mapError, errorFallback: spec?.errorFallback }
}

/** Native adapters by id (derived from the specs). */
export function nativeFactory(id: string): ProviderFactory | undefined {
  const runtime = providerSpec(id)?.runtime
  return runtime && 'factory' in runtime ? runtime.factory : undefined
}

/** Settings' credential fields of a provider (none for unknown ids). */
export const credentialFieldsOf = (id: string): readonly CredentialFieldSpec[] => providerSpec(id)?.fields ?? []

/** Whether the API key is the provider's credential (true for unknown OpenAI-compatible ids). */
export const usesApiKey = (id: string): boolean => providerSpec(id)?.usesApiKey ?? true

/** The CLI's credentials beyond the key, from the environment. */
export const envCredentialsOf = (id: string, env: NodeJS.ProcessEnv): Partial<ProviderCredentials> => credentialsFromEnv(providerSpec(id), env)
