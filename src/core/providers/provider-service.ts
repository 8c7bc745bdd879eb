import type { CredentialField, FetchedModels, PickerGroup, PickerModel, ProviderList, ProviderSummary } from '../../shared/bridge/procedures/providers'
import { getProviderCard, isCatalogueProviderId, listProviderCards, loadProviderModels } from '../../shared/catalogue/loader'
import { processModelList, type ModelListEntry } from '../../shared/catalogue/model-list'
import { MODEL_TYPES, type CatalogueModel, type ProviderCard } from '../../shared/catalogue/types'
import type { CostBreakdown } from '../../shared/data/cost'
import type { FetchedModel as StoredFetchedModel } from '../../shared/data/provider-settings'
import { customProviderId, customProviderSchema, isCustomProviderId, type CustomProvider } from '../../shared/data/custom-provider'
import { AppErrorException } from '../../shared/errors/app-error'
import { LOCAL_SERVER_KINDS, type LocalServerKind, type LocalServerStatus } from '../../shared/local/local-servers'
import type { ChatPricingContext } from '../../shared/pricing/lookup-params'
import { priceFromCatalogue } from './catalogue-price'
import type { Pricing } from '../../shared/pricing/types'
import type { UsageRecord } from '../../shared/stream/usage'
import type { DetectionService } from '../local/detection-service'
import { credentialFieldsOf, envCredentialsOf, usesApiKey } from '../runtime/provider-specs'
import { envKeyName } from '../runtime/key-source'
import { createProviderRuntime, hasNativeAdapter, resolveProviderFactory } from '../runtime/registry'
import type { ProviderCredentials, ProviderFactory, ProviderRuntime, RemoteModelCard } from '../runtime/types'
import { describeKey, type Secrets } from '../secrets'
import type { Store } from '../store'
import type { ModelFacts } from './model-facts'
import { logged } from '../log/logger'

const isLocal = (id: string): id is LocalServerKind => (LOCAL_SERVER_KINDS as readonly string[]).includes(id)
/** The built-in engine: local, always available (no server to detect), its models are the GGUF files found on disk. */
const BUILTIN = 'builtin'

interface StoredCredentials {
  apiKey?: string
  /** The environment variable the key came from, when none was stored. */
  keyEnv?: string
  fields: Partial<Record<CredentialField['name'], string>>
}

/** Model types the chat picker offers; the image page asks for `image`. */
const PICKER_TYPES = { chat: new Set(['chat']), image: new Set(['image']) }

const perMillion = (pricing: Pricing | undefined, name: string): number | undefined => {
  const unit = pricing?.units.find((u) => u.name === name && u.unit === 'millionTokens')
  return unit && unit.strategy === 'fixed' ? unit.rate : undefined
}

function toPickerModel(providerId: string, m: CatalogueModel | ModelListEntry, source: PickerModel['source'], enabled: boolean): PickerModel {
  const abilities = 'abilities' in m ? m.abilities : { vision: m.vision, functionCall: m.functionCall, reasoning: m.reasoning, search: m.search, imageOutput: m.imageOutput }
  const input = perMillion(m.pricing, 'textInput')
  const output = perMillion(m.pricing, 'textOutput')
  return {
    id: m.id,
    displayName: m.displayName,
    providerId,
    type: m.type,
    enabled,
    source,
    ...(m.contextWindowTokens !== undefined ? { contextWindowTokens: m.contextWindowTokens } : {}),
    ...(m.maxOutput !== undefined ? { maxOutput: m.maxOutput } : {}),
    abilities: {
      vision: Boolean(abilities.vision),
      functionCall: Boolean(abilities.functionCall),
      reasoning: Boolean(abilities.reasoning),
      search: Boolean(abilities.search),
      imageOutput: Boolean(abilities.imageOutput)
    },
    ...(input !== undefined || output !== undefined ? { price: { input, output, currency: m.pricing?.currency ?? 'USD' } } : {}),
    ...('settings' in m && m.settings?.extendParams ? { extendParams: m.settings.extendParams } : {})
  }
}

/** What a custom provider shows where a catalogue provider shows its card: its own name and address. */
function customCard(custom: CustomProvider): ProviderCard {
  return {
    id: customProviderId(custom.slug),
    name: custom.name,
    url: custom.baseUrl,
    defaultBaseURL: custom.baseUrl,
    sdkType: 'openai',
    showModelFetcher: true,
    supportResponsesApi: false,
    showApiKey: true,
    modelCount: custom.models.length,
    modelTypes: { chat: custom.models.length }
  }
}

/** A typed (or ability-edited) model of a custom provider as a processed list entry. */
function customEntry(m: CustomProvider['models'][number]): ModelListEntry {
  return {
    id: m.id,
    displayName: m.displayName ?? m.id,
    type: 'chat',
    enabled: true,
    ...(m.contextWindowTokens !== undefined ? { contextWindowTokens: m.contextWindowTokens } : {}),
    functionCall: Boolean(m.functionCall),
    reasoning: Boolean(m.reasoning),
    vision: Boolean(m.vision),
    search: false,
    imageOutput: false,
    video: false
  }
}

function storedToFetched(models: readonly StoredFetchedModel[]) {
  return models.map((m) => ({ id: m.id, ...(m.displayName ? { displayName: m.displayName } : {}), ...(m.enabled !== undefined ? { enabled: m.enabled } : {}), ...(m.extra ?? {}) }))
}

/**
 * Providers as the user sees them: the catalogue's cards and models, the user's settings
 * (enabled, base URL, fetched lists, per-model overrides), keys from the OS keychain, and
 * local servers' detection. Builds runtimes with the user's credentials and prices usage.
 */
export class ProviderService {
  private detected = new Map<string, { status: LocalServerStatus; at: number }>()
  /**
   * Each provider's keychain entries, read once: every keychain read is an OS round trip
   * (D-Bus, Keychain Services), and Settings and every reply would otherwise ask again for
   * each provider and field. Dropped on any set or delete of one of its entries, by anyone.
   */
  private readonly stored = new Map<string, Promise<StoredCredentials>>()
  /** The last runtime made per cloud provider, with what it was made from. */
  private readonly runtimes = new Map<string, { factory: ProviderFactory; signature: string; runtime: ProviderRuntime }>()

  constructor(
    private readonly store: Store,
    private readonly secrets: Secrets,
    private readonly detection?: DetectionService,
    /** Keys when none is stored: `<PROVIDER>_API_KEY`, as the CLI reads them (browser mode's environment). */
    private readonly env: NodeJS.ProcessEnv = {},
    /** Runtimes the root builds itself (the built-in engine's, on the root's engine) instead of the registry's. */
    private readonly factories: Readonly<Record<string, ProviderFactory>> = {}
  ) {
    secrets.onChange((name) => this.stored.delete(name.split('.')[0]!))
  }

  /** The provider's key and credential fields from the keychain (cached, see `stored`). */
  private keychain(providerId: string): Promise<StoredCredentials> {
    let entry = this.stored.get(providerId)
    if (!entry) {
      const read = async (): Promise<StoredCredentials> => {
        const stored = await this.secrets.readForRuntime(providerId)
        // A stored key wins; without one, the variable the CLI reads (a headless server's usual way).
        const keyEnv = envKeyName(providerId)
        const fromEnv = stored === undefined ? this.env[keyEnv]?.trim() || undefined : undefined
        const apiKey = stored ?? fromEnv
        const fields: StoredCredentials['fields'] = {}
        const envFields = envCredentialsOf(providerId, this.env)
        for (const field of credentialFieldsOf(providerId)) {
          const value = (await this.secrets.readForRuntime(`${providerId}.${field.name}`)) ?? envFields[field.name]
          if (value !== undefined) fields[field.name] = value
        }
        return { ...(apiKey !== undefined ? { apiKey } : {}), ...(fromEnv ? { keyEnv } : {}), fields }
      }
      entry = read()
      this.stored.set(providerId, entry)
      // A failed read is not remembered: the next call asks the keychain again.
      entry.catch(() => this.stored.get(providerId) === entry && this.stored.delete(providerId))
    }
    return entry
  }

  private card(providerId: string): ProviderCard {
    const custom = isCustomProviderId(providerId) ? this.customOf(providerId) : undefined
    return custom ? customCard(custom) : getProviderCard(providerId)
  }

  /** The user's own OpenAI-compatible providers, as stored in the settings table. */
  customProviders(): CustomProvider[] {
    return this.store.settings.app().customProviders ?? []
  }

  private customOf(providerId: string): CustomProvider | undefined {
    return this.customProviders().find((c) => customProviderId(c.slug) === providerId)
  }

  /**
   * Adds (`create`) or changes a custom provider; a key given here goes to the keychain like any
   * provider's. A slug already taken is refused on create, so two providers never share a key.
   */
  async saveCustom(input: CustomProvider, options: { create: boolean; apiKey?: string }): Promise<ProviderSummary> {
    const parsed = customProviderSchema.safeParse(input)
    if (!parsed.success) throw new AppErrorException({ errorType: 'ValidationError', status: 400, message: `Custom provider: ${parsed.error.issues[0]?.path.join('.') || 'value'} ${parsed.error.issues[0]?.message ?? 'is not valid'}.` })
    const custom = parsed.data
    const list = this.customProviders()
    const at = list.findIndex((c) => c.slug === custom.slug)
    if (options.create && at >= 0) throw new AppErrorException({ errorType: 'ValidationError', status: 409, message: `A custom provider with the id ${custom.slug} exists already: pick another name or id.` })
    if (!options.create && at < 0) this.card(customProviderId(custom.slug)) // throws the typed unknown-provider error
    const next = at >= 0 ? list.map((c, i) => (i === at ? custom : c)) : [...list, custom]
    this.store.settings.save({ customProviders: next })
    const id = customProviderId(custom.slug)
    if (options.apiKey?.trim()) await this.secrets.set(id, options.apiKey.trim())
    if (options.create) this.store.providers.update(id, { enabled: true })
    return this.summary(id)
  }

  /** Removes a custom provider with its settings and its key. */
  async removeCustom(providerId: string): Promise<void> {
    const custom = this.customOf(providerId)
    if (!custom) return void this.card(providerId)
    this.store.settings.save({ customProviders: this.customProviders().filter((c) => c !== custom) })
    this.store.providers.delete(providerId)
    await this.secrets.delete(providerId)
  }

  private async localStatus(kind: LocalServerKind, maxAgeMs = 5000): Promise<LocalServerStatus | undefined> {
    if (!this.detection) return undefined
    const cached = this.detected.get(kind)
    if (cached && Date.now() - cached.at < maxAgeMs) return cached.status
    const status = await this.detection.detectOne(kind)
    this.detected.set(kind, { status, at: Date.now() })
    return status
  }

  /** Where a local server is looked for (the Local models page's address, or its default), as Settings names it. */
  private serverAddress(providerId: string): { serverAddress?: string } {
    return isLocal(providerId) && this.detection ? { serverAddress: this.detection.endpoints()[providerId].baseUrl } : {}
  }

  /** A local server's address as Settings shows it: the one the Local models page set, if any. */
  private localAddress(providerId: string): { baseURL?: string } | undefined {
    if (!isLocal(providerId) || !this.detection) return undefined
    const endpoint = this.detection.endpoints()[providerId]
    return endpoint.custom ? { baseURL: endpoint.baseUrl } : {}
  }

  async summary(providerId: string): Promise<ProviderSummary> {
    const card = this.card(providerId)
    const settings = this.store.providers.get(providerId)
    const stored = await this.keychain(providerId)
    const key = describeKey(providerId, stored.apiKey)
    const local = isLocal(providerId) || providerId === BUILTIN
    const custom = isCustomProviderId(providerId) ? this.customOf(providerId) : undefined
    // A custom server may need no key (a local gateway): it is usable once added.
    const needsKey = !local && !custom && card.showApiKey !== false
    const running = providerId === BUILTIN ? true : local ? (await this.localStatus(providerId as LocalServerKind))?.running ?? false : undefined
    const credentialFields: CredentialField[] = []
    for (const { name, secret, required } of credentialFieldsOf(providerId)) {
      const value = stored.fields[name]
      credentialFields.push({ name, secret, required, set: value !== undefined, ...(!secret && value !== undefined ? { value } : {}) })
    }
    const hasCredentials = usesApiKey(providerId) ? key.hasKey : credentialFields.every((f) => !f.required || f.set)
    return {
      id: card.id,
      name: card.name,
      sdkType: card.sdkType ?? 'openai',
      // A key from the environment enables a provider the user never touched, as saving a key does.
      enabled: settings.enabled || (stored.keyEnv !== undefined && settings.updatedAt === 0),
      hasKey: key.hasKey,
      ...(key.last4 ? { last4: key.last4 } : {}),
      keyPersistent: this.secrets.status.persistent,
      ...(stored.keyEnv ? { keyEnv: stored.keyEnv } : {}),
      ...(this.secrets.status.reason && !this.secrets.status.persistent ? { keyMemoryReason: this.secrets.status.reason } : {}),
      ...(this.localAddress(providerId) ?? (settings.baseUrl ? { baseURL: settings.baseUrl } : {})),
      ...(card.defaultBaseURL ? { defaultBaseURL: card.defaultBaseURL } : {}),
      ...(card.proxyPlaceholder ? { proxyPlaceholder: card.proxyPlaceholder } : {}),
      ...(card.apiKeyUrl ? { apiKeyUrl: card.apiKeyUrl } : {}),
      local,
      ...(running !== undefined ? { running } : {}),
      ...this.serverAddress(providerId),
      available: local ? Boolean(running) : !needsKey || hasCredentials,
      canFetchModels: card.showModelFetcher,
      usesApiKey: usesApiKey(providerId) && !local,
      credentialFields,
      ...(custom ? { custom } : {})
    }
  }

  private ids(): string[] {
    return [...listProviderCards().map((card) => card.id), ...this.customProviders().map((c) => customProviderId(c.slug))]
  }

  summaries(): Promise<ProviderSummary[]> {
    return Promise.all(this.ids().map((id) => this.summary(id)))
  }

  /** Every keychain name that holds a provider credential: each provider's key and its credential fields (what sync may carry). */
  keyNames(): string[] {
    return this.ids().flatMap((id) => [id, ...credentialFieldsOf(id).map((field) => `${id}.${field.name}`)])
  }

  isKeyName(name: string): boolean {
    return this.keyNames().includes(name)
  }

  /** Settings' list and the picker's groups in one call: the summaries are built once for both. */
  async list(options: { all?: boolean; type?: 'chat' | 'image' } = {}): Promise<ProviderList> {
    const providers = await this.summaries()
    return { providers, picker: await this.picker(providers, options) }
  }

  /** Built-in models, then the fetched list processed per product.md §4, with the user's overrides. */
  async models(providerId: string): Promise<PickerModel[]> {
    if (isCustomProviderId(providerId)) return this.customModels(providerId)
    if (!isCatalogueProviderId(providerId)) this.card(providerId) // throws the typed unknown-provider error
    const builtin = await loadProviderModels(providerId)
    const settings = this.store.providers.get(providerId)
    const overrides = settings.modelOverrides
    const out = new Map<string, PickerModel>()
    if (providerId === BUILTIN || (isLocal(providerId) && (await this.localStatus(providerId))?.running)) {
      // A running local server offers what it has installed, and only that: its live list
      // (processed like any provider's) replaces the built-in entries it may not serve. Each
      // installed model is offered unless the user switched it off; the §4 `enabled` of the
      // list itself (false for ids the catalogue does not know) is not what decides here.
      const installed = await this.runtime(providerId)
        .then((r) => r.models?.({ signal: AbortSignal.timeout(3000) }))
        // The picker still opens (with no installed models), but the reason is kept.
        .catch(logged('providers', `listing the models of the running ${providerId} server`))
      // Each keeps the type its server gave (Xinference's embedding, speech and transcription
      // models are not chat models); an entry with none is a chat model.
      const processed = processModelList(
        (installed?.models ?? []).map((m) => ({ ...m, type: MODEL_TYPES.find((t) => t === m.type) ?? 'chat' })),
        { builtin }
      )
      for (const m of processed) out.set(m.id, toPickerModel(providerId, m, 'remote', overrides[m.id]?.enabled ?? true))
      return [...out.values()]
    }
    // A local server that does not answer has none of the catalogue's entries as far as anyone
    // knows: only the list it gave when last asked (below) is its own.
    const local = isLocal(providerId)
    if (!local) for (const m of builtin) out.set(m.id, toPickerModel(providerId, m, 'builtin', overrides[m.id]?.enabled ?? m.enabled))
    if (settings.fetchedModels.length > 0) {
      const processed = processModelList(storedToFetched(settings.fetchedModels), {
        builtin,
        stored: Object.entries(overrides).map(([id, o]) => ({ id, enabled: o.enabled }))
      })
      // A local server's list is what it really has installed: offered unless switched off,
      // even while it is stopped (the §4 `enabled` is false for ids the catalogue lacks).
      for (const m of processed) if (!out.has(m.id)) out.set(m.id, toPickerModel(providerId, m, 'remote', overrides[m.id]?.enabled ?? (local || m.enabled)))
    }
    return [...out.values()]
  }

  /**
   * A custom provider's models: the ones typed by hand, then its fetched list. The server's own
   * list is what it serves, so a fetched model is offered unless switched off; abilities the user
   * set for a model win over the guesses made from its id.
   */
  private customModels(providerId: string): PickerModel[] {
    const custom = this.customOf(providerId)
    if (!custom) return void this.card(providerId) as never
    const settings = this.store.providers.get(providerId)
    const overrides = settings.modelOverrides
    const fetchedName = new Map(settings.fetchedModels.map((f) => [f.id, f.displayName]))
    const out = new Map<string, PickerModel>()
    for (const m of custom.models) {
      const entry = customEntry({ ...m, displayName: m.displayName ?? fetchedName.get(m.id) })
      out.set(m.id, toPickerModel(providerId, entry, 'custom', overrides[m.id]?.enabled ?? true))
    }
    for (const m of processModelList(storedToFetched(settings.fetchedModels))) {
      if (!out.has(m.id) && m.type === 'chat') out.set(m.id, toPickerModel(providerId, m, 'remote', overrides[m.id]?.enabled ?? true))
    }
    return [...out.values()]
  }

  /**
   * Providers with their models of `type` (each with its enabled flag: the picker lists the
   * enabled ones and lets a search reach the rest); by default only the usable providers.
   */
  private async picker(summaries: ProviderSummary[], options: { all?: boolean; type?: 'chat' | 'image' }): Promise<PickerGroup[]> {
    const types = PICKER_TYPES[options.type ?? 'chat']
    const groups: PickerGroup[] = []
    for (const provider of summaries) {
      // A running local server is usable with no setup; cloud providers once they have a key
      // (setting a key enables the provider; the user can still switch it off).
      if (!options.all && (!provider.available || (!provider.enabled && !provider.local))) continue
      const models = (await this.models(provider.id)).filter((m) => types.has(m.type))
      if (models.length > 0) groups.push({ provider, models })
    }
    return groups
  }

  async credentials(providerId: string): Promise<ProviderCredentials> {
    const settings = this.store.providers.get(providerId)
    const card = isCatalogueProviderId(providerId) || isCustomProviderId(providerId) ? this.card(providerId) : undefined
    const credentials: ProviderCredentials = {}
    const stored = await this.keychain(providerId)
    if (stored.apiKey) credentials.apiKey = stored.apiKey
    const baseURL = settings.baseUrl ?? settings.proxyUrl ?? card?.defaultBaseURL
    if (baseURL) credentials.baseURL = baseURL
    // A local server has one address, the Local models page's (detection): chats go where models are pulled.
    if (isLocal(providerId) && this.detection) {
      const detected = this.detection.baseUrl(providerId)
      // The detection URL is the server root; the OpenAI-style local servers serve under /v1.
      credentials.baseURL = providerId === 'ollama' ? detected : `${detected.replace(/\/+$/, '')}/v1`
    }
    for (const [field, value] of Object.entries(stored.fields)) if (value) credentials[field as CredentialField['name']] = value
    return credentials
  }

  async runtime(providerId: string): Promise<ProviderRuntime> {
    // Ids come from callers (a local API client's `provider/model`): `constructor` or `__proto__`
    // must not find Object.prototype's members, and an id nobody knows is UnknownProvider (404).
    const own = Object.hasOwn(this.factories, providerId) ? this.factories[providerId] : undefined
    if (!own && !isCatalogueProviderId(providerId) && !isCustomProviderId(providerId) && !hasNativeAdapter(providerId)) this.card(providerId)
    if (own) return own(await this.credentials(providerId), { providerId })
    const credentials = await this.credentials(providerId)
    // A local server's runtime remembers what it read from the server (context windows), so it
    // is made per call; a cloud runtime holds only its key and address, and building it (its SDK
    // client) cost each short call. A new key, address or adapter makes a new one.
    if (isLocal(providerId)) return createProviderRuntime(providerId, credentials)
    const factory = resolveProviderFactory(providerId)
    const signature = JSON.stringify(credentials)
    const kept = this.runtimes.get(providerId)
    if (kept && kept.factory === factory && kept.signature === signature) return kept.runtime
    const runtime = factory(credentials, { providerId })
    this.runtimes.set(providerId, { factory, signature, runtime })
    return runtime
  }

  async modelFacts(providerId: string, modelId: string): Promise<ModelFacts | undefined> {
    if (!isCatalogueProviderId(providerId) && !isCustomProviderId(providerId)) return undefined
    // Called on every reply. For cloud providers the built-in entry wins in models() anyway, so
    // read it directly; only a miss (a fetched-only model) or a local server (whose live list is
    // authoritative) needs the full model list.
    if (!isLocal(providerId) && !isCustomProviderId(providerId)) {
      const builtin = (await loadProviderModels(providerId)).find((m) => m.id === modelId)
      if (builtin)
        return {
          contextWindowTokens: builtin.contextWindowTokens,
          maxOutput: builtin.maxOutput,
          vision: Boolean(builtin.abilities.vision),
          // The chat controls (thinking, caching, search) come from these.
          extendParams: builtin.settings?.extendParams,
          search: builtin.abilities.search,
          reasoning: builtin.abilities.reasoning,
          searchImpl: builtin.settings?.searchImpl
        }
    }
    const model = (await this.models(providerId)).find((m) => m.id === modelId)
    return model && { contextWindowTokens: model.contextWindowTokens, maxOutput: model.maxOutput, vision: model.abilities.vision, extendParams: model.extendParams, search: model.abilities.search, reasoning: model.abilities.reasoning }
  }

  /** `context` (the request's thinking, cache ttl) keys lookup-priced units; without it they cost nothing. */
  price(providerId: string, modelId: string, usage: UsageRecord, context?: ChatPricingContext): Promise<CostBreakdown | undefined> {
    return priceFromCatalogue(providerId, modelId, usage, context)
  }

  async setKey(providerId: string, apiKey: string): Promise<ProviderSummary> {
    this.card(providerId)
    await this.secrets.set(providerId, apiKey)
    if (!this.store.providers.get(providerId).enabled) this.store.providers.update(providerId, { enabled: true })
    return this.summary(providerId)
  }

  /** Stores a credential field (`bedrock.accessKeyId`…) in the keychain; an empty value removes it. */
  async setCredential(providerId: string, name: CredentialField['name'], value: string): Promise<ProviderSummary> {
    if (!credentialFieldsOf(providerId).some((f) => f.name === name)) {
      throw new AppErrorException({ errorType: 'ValidationError', status: 400, message: `${this.card(providerId).name} has no credential named ${name}.` })
    }
    if (value.trim()) await this.secrets.set(`${providerId}.${name}`, value)
    else await this.secrets.delete(`${providerId}.${name}`)
    const summary = await this.summary(providerId)
    if (summary.available && !summary.enabled) this.store.providers.update(providerId, { enabled: true })
    return this.summary(providerId)
  }

  async removeKey(providerId: string): Promise<ProviderSummary> {
    this.card(providerId)
    await this.secrets.delete(providerId)
    return this.summary(providerId)
  }

  async update(providerId: string, patch: { enabled?: boolean; baseURL?: string }): Promise<ProviderSummary> {
    this.card(providerId)
    // A local server's address is kept in one place, the detection's, whichever page edits it.
    const local = isLocal(providerId) && this.detection !== undefined
    this.store.providers.update(providerId, {
      ...(patch.enabled !== undefined ? { enabled: patch.enabled } : {}),
      ...(patch.baseURL !== undefined ? { baseUrl: local ? undefined : patch.baseURL || undefined } : {})
    })
    if (local && patch.baseURL !== undefined && this.detection) {
      await this.detection.setBaseUrl(providerId, patch.baseURL || null)
      this.detected.delete(providerId)
    }
    return this.summary(providerId)
  }

  async setModelEnabled(providerId: string, modelId: string, enabled: boolean): Promise<PickerModel[]> {
    this.card(providerId)
    this.store.providers.setModelEnabled(providerId, modelId, enabled)
    return this.models(providerId)
  }

  async setModelsEnabled(providerId: string, modelIds: readonly string[], enabled: boolean): Promise<PickerModel[]> {
    this.card(providerId)
    for (const id of new Set(modelIds)) this.store.providers.setModelEnabled(providerId, id, enabled)
    return this.models(providerId)
  }

  async fetchModels(providerId: string): Promise<FetchedModels> {
    const before = this.store.providers.get(providerId).fetchedModels
    // On a first fetch "new" means beyond the built-in list; later, beyond the last fetch.
    const builtin = isCustomProviderId(providerId) ? (this.customOf(providerId)?.models ?? []) : await loadProviderModels(providerId)
    // A local server lists none of the catalogue's entries unasked: everything on its first list is new.
    const local = isLocal(providerId)
    const known = new Set(before.length > 0 ? before.map((m) => m.id) : local ? [] : builtin.map((m) => m.id))
    const runtime = await this.runtime(providerId)
    if (!runtime.models) throw new AppErrorException({ errorType: 'ProviderBizError', status: 471, message: `${this.card(providerId).name} does not offer a model list.` })
    // Whether it answered or not, a local server's last detection is stale now: Settings asks again.
    if (local) this.detected.delete(providerId)
    const result = await runtime.models()
    const fetched: StoredFetchedModel[] = result.models.map((m: RemoteModelCard) => {
      const { id, displayName, enabled, type, ...rest } = m
      return {
        id,
        ...(displayName ? { displayName } : {}),
        ...(type ? { type } : {}),
        ...(enabled !== undefined ? { enabled } : {}),
        extra: JSON.parse(JSON.stringify(rest)) as StoredFetchedModel['extra']
      }
    })
    this.store.providers.update(providerId, { fetchedModels: fetched, fetchedAt: Date.now() })
    const now = new Set(fetched.map((m) => m.id))
    return {
      models: await this.models(providerId),
      ...(result.warning ? { warning: result.warning } : {}),
      listed: fetched.length,
      added: fetched.map((m) => m.id).filter((id) => !known.has(id)),
      removed: before.map((m) => m.id).filter((id) => !now.has(id))
    }
  }

  /**
   * The model Test connection runs (the caller makes the call, ../caller/connection-test): the
   * user's choice; by default the first enabled chat model (what they will chat with), then the
   * catalogue's cheap check model, then any chat model.
   */
  async testModel(providerId: string, modelId?: string): Promise<{ modelId: string; name: string; openAIStyle: boolean }> {
    const card = this.card(providerId)
    const chat = modelId ? [] : (await this.models(providerId)).filter((m) => m.type === 'chat')
    const model = modelId ?? chat.find((m) => m.enabled)?.id ?? card.checkModel ?? chat[0]?.id
    if (!model) throw new AppErrorException({ errorType: 'ConnectionCheckFailed', status: 400, message: 'No model to test with: pick one, or fetch the model list first.' })
    return { modelId: model, name: card.name, openAIStyle: card.sdkType === undefined || card.sdkType === 'openai' }
  }
}
