import type { Contract } from '../../shared/bridge/contract'
import type { ProviderService } from './provider-service'
import type { Implementation } from '../bridge/router'

/** Test connection is a model call: the caller's feature answers it (../caller/feature). */
export type ProviderProcedures = Exclude<Extract<keyof Contract, `providers.${string}`>, 'providers.test'>
type ProviderHandlers = Pick<Implementation<Contract>, ProviderProcedures>

/**
 * Provider settings and keys: the only procedures that set a key, an endpoint or a model's
 * enabled flag, all through ProviderService (which validates, keeps its keychain cache right and
 * tells a local server detector about a new address).
 */
export function providerHandlers(providers: () => ProviderService): ProviderHandlers {
  return {
    'providers.list': (input) => providers().list(input),
    'providers.models': ({ providerId }) => providers().models(providerId),
    'providers.setKey': ({ providerId, apiKey }) => providers().setKey(providerId, apiKey),
    'providers.removeKey': ({ providerId }) => providers().removeKey(providerId),
    'providers.setCredential': ({ providerId, name, value }) => providers().setCredential(providerId, name, value),
    'providers.update': ({ providerId, ...patch }) => providers().update(providerId, patch),
    'providers.setModelEnabled': ({ providerId, modelId, enabled }) => providers().setModelEnabled(providerId, modelId, enabled),
    'providers.setModelsEnabled': ({ providerId, modelIds, enabled }) => providers().setModelsEnabled(providerId, modelIds, enabled),
    'providers.fetchModels': ({ providerId }) => providers().fetchModels(providerId),
    'providers.saveCustom': ({ custom, create, apiKey }) => providers().saveCustom(custom, { create, ...(apiKey ? { apiKey } : {}) }),
    'providers.removeCustom': async ({ providerId }) => (await providers().removeCustom(providerId), { ok: true as const })
  }
}
