import { create } from 'zustand'
import type { PickerGroup, PickerModel, ProviderSummary } from '../../../shared/bridge/procedures/providers'
import type { AppError } from '../../../shared/errors/app-error'
import { bridge } from '../../stores/app-store'

interface ProvidersState {
  providers: ProviderSummary[]
  picker: PickerGroup[]
  models: Record<string, PickerModel[]>
  loaded: boolean
}

export const useProviders = create<ProvidersState>()(() => ({ providers: [], picker: [], models: {}, loaded: false }))

const replace = (summary: ProviderSummary) =>
  useProviders.setState((s) => ({ providers: s.providers.map((p) => (p.id === summary.id ? summary : p)) }))

export const providerActions = {
  async load() {
    const [list, picker] = await Promise.all([bridge().call('providers.list', {}), bridge().call('providers.picker', {})])
    useProviders.setState({
      ...(list.ok ? { providers: list.value } : {}),
      ...(picker.ok ? { picker: picker.value } : {}),
      loaded: true
    })
  },
  async refreshPicker(all = false) {
    const picker = await bridge().call('providers.picker', all ? { all } : {})
    if (picker.ok) useProviders.setState({ picker: picker.value })
    return picker
  },
  async models(providerId: string) {
    const result = await bridge().call('providers.models', { providerId })
    if (result.ok) useProviders.setState((s) => ({ models: { ...s.models, [providerId]: result.value } }))
    return result
  },
  async setKey(providerId: string, apiKey: string): Promise<AppError | undefined> {
    const result = await bridge().call('providers.setKey', { providerId, apiKey })
    if (!result.ok) return result.error
    replace(result.value)
    await providerActions.refreshPicker()
    return undefined
  },
  async setCredential(providerId: string, name: ProviderSummary['credentialFields'][number]['name'], value: string): Promise<AppError | undefined> {
    const result = await bridge().call('providers.setCredential', { providerId, name, value })
    if (!result.ok) return result.error
    replace(result.value)
    await providerActions.refreshPicker()
    return undefined
  },
  async removeKey(providerId: string) {
    const result = await bridge().call('providers.removeKey', { providerId })
    if (result.ok) replace(result.value)
    await providerActions.refreshPicker()
  },
  async update(providerId: string, patch: { enabled?: boolean; baseURL?: string }): Promise<AppError | undefined> {
    const result = await bridge().call('providers.update', { providerId, ...patch })
    if (!result.ok) return result.error
    replace(result.value)
    await providerActions.refreshPicker()
    return undefined
  },
  async setModelEnabled(providerId: string, modelId: string, enabled: boolean) {
    const result = await bridge().call('providers.setModelEnabled', { providerId, modelId, enabled })
    if (result.ok) useProviders.setState((s) => ({ models: { ...s.models, [providerId]: result.value } }))
    await providerActions.refreshPicker()
  },
  async fetchModels(providerId: string) {
    const result = await bridge().call('providers.fetchModels', { providerId })
    if (result.ok) useProviders.setState((s) => ({ models: { ...s.models, [providerId]: result.value.models } }))
    await providerActions.refreshPicker()
    return result
  },
  test: (providerId: string, modelId?: string) => bridge().call('providers.test', { providerId, ...(modelId ? { modelId } : {}) })
}
