import { createOpenAICompatibleRuntime } from './openai-compatible/create-runtime'
import { nativeFactory, providerSpec } from './provider-specs'
import type { NativeApi, ProviderCredentials, ProviderFactory, ProviderRuntime } from './types'

/** Adapters registered at run time (tests, plugins); they win over the built-in table. */
const registered = new Map<string, ProviderFactory>()

export function registerProvider(id: string, factory: ProviderFactory): void {
  registered.set(id, factory)
}

export function unregisterProvider(id: string): void {
  registered.delete(id)
}

/** The factory for an id: registered, else its spec's native adapter (./provider-specs), else the generic OpenAI-compatible adapter. */
export function resolveProviderFactory(id: string): ProviderFactory {
  return registered.get(id) ?? nativeFactory(id) ?? createOpenAICompatibleRuntime
}

/** Whether the id has its own adapter (native) rather than the OpenAI-compatible fallback. */
export function hasNativeAdapter(id: string): boolean {
  return registered.has(id) || nativeFactory(id) !== undefined
}

/**
 * The API whose provider-run tools the id's runtime takes unchanged for a model (its spec's
 * `nativeApi`); none for an adapter registered at run time, which is not the spec's runtime.
 */
export function nativeApiOf(id: string, model: string): NativeApi | undefined {
  return registered.has(id) ? undefined : providerSpec(id)?.nativeApi?.(model)
}

/**
 * Builds the runtime for a provider id. Credentials are validated here or at the first
 * call, always before any network request; failures throw AppErrorException.
 */
export function createProviderRuntime(id: string, credentials: ProviderCredentials): ProviderRuntime {
  return resolveProviderFactory(id)(credentials, { providerId: id })
}
