import { useCallback, useState } from 'react'
import { create } from 'zustand'
import type { PickerGroup, PickerModel, ProviderSummary } from '../../../shared/bridge/procedures/providers'
import type { CustomProvider } from '../../../shared/data/custom-provider'
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
    const list = await bridge().call('providers.list', {})
    useProviders.setState({ ...(list.ok ? { providers: list.value.providers, picker: list.value.picker } : {}), loaded: true })
  },
  async refreshPicker(all = false) {
    const list = await bridge().call('providers.list', all ? { all } : {})
    if (!list.ok) return list
    useProviders.setState({ providers: list.value.providers, picker: list.value.picker })
    return { ok: true as const, value: list.value.picker }
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
  async setModelsEnabled(providerId: string, modelIds: string[], enabled: boolean) {
    const result = await bridge().call('providers.setModelsEnabled', { providerId, modelIds, enabled })
    if (result.ok) useProviders.setState((s) => ({ models: { ...s.models, [providerId]: result.value } }))
    await providerActions.refreshPicker()
  },
  async fetchModels(providerId: string) {
    const result = await bridge().call('providers.fetchModels', { providerId })
    if (result.ok) useProviders.setState((s) => ({ models: { ...s.models, [providerId]: result.value.models } }))
    await providerActions.refreshPicker()
    return result
  },
  /** Adds or changes a custom provider, then reloads the list (a new one appears in it) and its models. */
  async saveCustom(custom: CustomProvider, options: { create: boolean; apiKey?: string }) {
    const result = await bridge().call('providers.saveCustom', { custom, ...options })
    if (result.ok) {
      await providerActions.refreshPicker()
      await providerActions.models(result.value.id)
    }
    return result
  },
  async removeCustom(providerId: string) {
    const result = await bridge().call('providers.removeCustom', { providerId })
    await providerActions.refreshPicker()
    return result
  },
  test: (providerId: string, modelId?: string) => bridge().call('providers.test', { providerId, ...(modelId ? { modelId } : {}) })
}

/**
 * The open state of a dialog that picks models (the model picker, the competition picker): every
 * opening refreshes the list first, so a key saved or a local server started a moment ago shows.
 */
export function usePickerDialog(): [open: boolean, onOpenChange: (next: boolean) => void] {
  const [open, setOpen] = useState(false)
  const onOpenChange = useCallback((next: boolean) => {
    setOpen(next)
    if (next) void providerActions.refreshPicker()
  }, [])
  return [open, onOpenChange]
}
