import { useEffect, useMemo, useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { describeError } from '../../../shared/errors/catalogue'
import type { AppError } from '../../../shared/errors/app-error'
import { Plus, Search } from 'lucide-react'
import type { FetchedModels, PickerModel, ProviderSummary } from '../../../shared/bridge/procedures/providers'
import { ProviderIcon } from './provider-icon'
import { CustomModelAbilities, CustomProviderForm } from './custom-provider-form'
import { KeyStorageNote } from './key-storage-note'
import { orderProviders } from './provider-order'
import { providerActions, useProviders } from './providers-store'

const input = 'w-full rounded-md border border-zinc-300 bg-transparent px-3 py-1.5 text-sm dark:border-zinc-700'
const smallButton = 'rounded-md border border-zinc-300 px-2.5 py-1 text-xs hover:bg-zinc-100 disabled:opacity-50 dark:border-zinc-700 dark:hover:bg-zinc-800'

function ErrorLine({ error }: { error?: AppError }) {
  const { i18n } = useTranslation()
  if (!error) return null
  // Shown in Settings: the fix never says "go to Settings".
  const text = describeError(error.errorType, i18n.language === 'zh-CN' ? 'zh-CN' : 'en', 'settings')
  return (
    <p role="alert" className="text-xs text-red-600 dark:text-red-400" data-testid="provider-error">
      {error.errorType === 'ValidationError' || error.errorType === 'ConnectionCheckFailed' ? error.message : `${text.title} ${text.fix}`}
    </p>
  )
}

/** One credential beyond the key; secret fields are write-only like the key. */
function CredentialInput({ provider, field, onError }: { provider: ProviderSummary; field: ProviderSummary['credentialFields'][number]; onError(e?: AppError): void }) {
  const { t } = useTranslation()
  const [value, setValue] = useState(field.secret ? '' : (field.value ?? ''))
  const save = async () => {
    if (field.secret && !value.trim()) return
    if (!field.secret && value === (field.value ?? '')) return
    const next = value
    if (field.secret) setValue('')
    onError(await providerActions.setCredential(provider.id, field.name, next))
  }
  return (
    <label className="block space-y-1">
      <span className="block text-xs font-medium">
        {t(`providers.fields.${field.name}`)}
        {field.required && ' *'}
      </span>
      {field.name === 'serviceAccountJson' ? (
        <textarea
          value={value}
          onChange={(e) => setValue(e.target.value)}
          onBlur={() => void save()}
          rows={3}
          placeholder={field.set ? t('providers.storedHidden') : '{ "type": "service_account", … }'}
          data-testid={`credential-${field.name}`}
          className={`${input} font-mono text-xs`}
        />
      ) : (
        <input
          type={field.secret ? 'password' : 'text'}
          autoComplete="off"
          value={value}
          onChange={(e) => setValue(e.target.value)}
          onBlur={() => void save()}
          onKeyDown={(e) => e.key === 'Enter' && void save()}
          placeholder={field.secret && field.set ? t('providers.storedHidden') : ''}
          data-testid={`credential-${field.name}`}
          className={`${input} ${field.secret ? 'font-mono' : ''}`}
        />
      )}
    </label>
  )
}

const LISTED = 12

/** The detail pane's value for "Add custom provider" (no provider id has this form). */
const ADD_CUSTOM = ':add-custom'

/** What "Fetch model list" found: how many, which are new and which went away; new ones enable in one step. */
function FetchResult({ providerId, fetched, models }: { providerId: string; fetched: FetchedModels; models: readonly PickerModel[] }) {
  const { t } = useTranslation()
  const byId = new Map(models.map((m) => [m.id, m]))
  const offNew = fetched.added.filter((id) => byId.get(id)?.enabled === false)
  const list = (ids: string[]) => ids.slice(0, LISTED).join(', ') + (ids.length > LISTED ? ` ${t('polish.andMore', { count: ids.length - LISTED })}` : '')
  return (
    <div role="status" data-testid="provider-fetch-result" className="space-y-1.5 rounded-md border border-zinc-200 bg-zinc-50 p-3 text-xs dark:border-zinc-800 dark:bg-zinc-900">
      <p className="font-medium">{t('polish.fetchSummary', { count: fetched.listed, added: fetched.added.length, removed: fetched.removed.length })}</p>
      {fetched.added.length > 0 && (
        <p data-testid="provider-fetch-added">
          <span className="text-emerald-700 dark:text-emerald-400">{t('polish.fetchNew')}</span> {list(fetched.added)}
        </p>
      )}
      {fetched.removed.length > 0 && (
        <p data-testid="provider-fetch-removed">
          <span className="text-amber-700 dark:text-amber-400">{t('polish.fetchRemoved')}</span> {list(fetched.removed)}
        </p>
      )}
      {offNew.length > 0 && (
        <button className={smallButton} data-testid="provider-enable-fetched" onClick={() => void providerActions.setModelsEnabled(providerId, offNew, true)}>
          {t('polish.enableNew', { count: offNew.length })}
        </button>
      )}
    </div>
  )
}

function ProviderDetail({ provider }: { provider: ProviderSummary }) {
  const { t } = useTranslation()
  const models = useProviders((s) => s.models[provider.id])
  const [key, setKey] = useState('')
  const [baseURL, setBaseURL] = useState(provider.baseURL ?? '')
  const [error, setError] = useState<AppError>()
  const [status, setStatus] = useState<string>()
  const [busy, setBusy] = useState<'test' | 'fetch' | 'save'>()
  const [fetched, setFetched] = useState<FetchedModels>()
  // Test connection's model: the user's pick, else the first enabled chat model.
  const chatModels = useMemo(() => (models ?? []).filter((m) => m.type === 'chat'), [models])
  const [testModel, setTestModel] = useState<string>()
  const testModelId = testModel ?? chatModels.find((m) => m.enabled)?.id
  useEffect(() => {
    void providerActions.models(provider.id)
  }, [provider.id])

  const saveKey = async (event: FormEvent) => {
    event.preventDefault()
    // The key leaves the page at once: the field is cleared before the round trip.
    const value = key
    setKey('')
    setBusy('save')
    setError(await providerActions.setKey(provider.id, value))
    setBusy(undefined)
  }
  // Fetch model list; for a local server that did not answer, also its "Check again".
  const fetchList = async () => {
    setBusy('fetch')
    setError(undefined)
    setFetched(undefined)
    const r = await providerActions.fetchModels(provider.id)
    setBusy(undefined)
    if (!r.ok) setError(r.error)
    else {
      setFetched(r.value)
      if (r.value.warning) setStatus(r.value.warning)
    }
  }
  const saveBaseURL = async () => {
    if ((provider.baseURL ?? '') === baseURL.trim()) return
    setError(await providerActions.update(provider.id, { baseURL: baseURL.trim() }))
    // A local server's models are what the server at the new address has.
    if (provider.local) void providerActions.models(provider.id)
  }
  return (
    <div className="space-y-4 px-4 py-4" data-testid={`provider-detail-${provider.id}`}>
      {provider.local && provider.running === false && provider.serverAddress && (
        <div role="status" data-testid="provider-server-down" className="space-y-2 rounded-md border border-amber-300 bg-amber-50 p-3 text-xs text-amber-900 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-200">
          <p>{t(models && models.length > 0 ? 'providers.serverDownKept' : 'providers.serverDown', { name: provider.name, url: provider.serverAddress })}</p>
          <button className={smallButton} disabled={busy === 'fetch'} data-testid="provider-server-recheck" onClick={() => void fetchList()}>
            {busy === 'fetch' ? t('providers.fetching') : t('providers.checkAgain')}
          </button>
        </div>
      )}
      {provider.custom && <CustomProviderForm key={JSON.stringify(provider.custom)} existing={provider} onSaved={() => undefined} />}
      {provider.credentialFields.length > 0 && (
        <div className="grid gap-3 sm:grid-cols-2">
          {provider.credentialFields.map((field) => (
            <CredentialInput key={field.name} provider={provider} field={field} onError={setError} />
          ))}
        </div>
      )}
      {!provider.local && provider.usesApiKey && (
        <form onSubmit={saveKey} className="space-y-1.5">
          <label className="block text-xs font-medium" htmlFor={`key-${provider.id}`}>
            {t('providers.apiKey')}
          </label>
          <div className="flex gap-2">
            <input
              id={`key-${provider.id}`}
              type="password"
              autoComplete="off"
              value={key}
              onChange={(e) => setKey(e.target.value)}
              placeholder={provider.hasKey ? `•••• ${provider.last4 ?? ''}` : 'sk-…'}
              data-testid="provider-key-input"
              className={`${input} font-mono`}
            />
            <button type="submit" disabled={!key.trim() || busy === 'save'} className={smallButton} data-testid="provider-key-save">
              {t('providers.save')}
            </button>
            {provider.hasKey && (
              <button type="button" onClick={() => void providerActions.removeKey(provider.id)} className={smallButton}>
                {t('providers.remove')}
              </button>
            )}
          </div>
          <p className="text-xs text-zinc-500" data-testid="provider-key-status">
            {provider.keyEnv
              ? t('providers.keyFromEnv', { name: provider.keyEnv, last4: provider.last4 ?? '' })
              : provider.hasKey
                ? provider.last4
                  ? t('providers.keySaved', { last4: provider.last4 })
                  : t('providers.keySavedShort')
                : t('providers.noKey')}
            {provider.apiKeyUrl && (
              <>
                {' · '}
                <a href={provider.apiKeyUrl} target="_blank" rel="noreferrer noopener" className="text-accent underline">
                  {t('providers.getKey')}
                </a>
              </>
            )}
          </p>
          {!provider.keyPersistent && <KeyStorageNote />}
        </form>
      )}
      {!provider.custom && (
      <label className="block space-y-1.5">
        <span className="block text-xs font-medium">{t('providers.baseUrl')}</span>
        <input
          value={baseURL}
          onChange={(e) => setBaseURL(e.target.value)}
          onBlur={() => void saveBaseURL()}
          onKeyDown={(e) => e.key === 'Enter' && void saveBaseURL()}
          placeholder={provider.proxyPlaceholder ?? provider.defaultBaseURL ?? ''}
          data-testid="provider-base-url"
          className={input}
        />
      </label>
      )}
      <div className="flex flex-wrap items-center gap-2">
        {chatModels.length > 0 && (
          <select
            aria-label={t('providers.testModel')}
            value={testModelId ?? ''}
            onChange={(e) => setTestModel(e.target.value || undefined)}
            data-testid="provider-test-model"
            className="max-w-56 rounded-md border border-zinc-300 bg-transparent px-2 py-1 text-xs dark:border-zinc-700"
          >
            {!testModelId && <option value="">{t('providers.testModelDefault')}</option>}
            {chatModels.map((m) => (
              <option key={m.id} value={m.id}>
                {m.displayName}
              </option>
            ))}
          </select>
        )}
        <button
          className={smallButton}
          disabled={busy === 'test'}
          data-testid="provider-test"
          onClick={async () => {
            setBusy('test')
            setError(undefined)
            setStatus(undefined)
            const r = await providerActions.test(provider.id, testModelId)
            setBusy(undefined)
            if (r.ok) setStatus(t('providers.testOk', { model: r.value.modelId, ms: r.value.ms }))
            else setError(r.error)
          }}
        >
          {busy === 'test' ? t('providers.testing') : t('providers.test')}
        </button>
        {provider.canFetchModels && (
          <button
            className={smallButton}
            disabled={busy === 'fetch'}
            data-testid="provider-fetch"
            onClick={() => void fetchList()}
          >
            {busy === 'fetch' ? t('providers.fetching') : t('providers.fetch')}
          </button>
        )}
        {status && (
          <span role="status" className="text-xs text-emerald-700 dark:text-emerald-400" data-testid="provider-status">
            {status}
          </span>
        )}
      </div>
      <ErrorLine error={error} />
      {fetched && <FetchResult providerId={provider.id} fetched={fetched} models={models ?? fetched.models} />}
      {models && models.length > 0 && (
        <div>
          <h4 className="mb-1 text-xs font-medium">
            {t('providers.models')} ({models.filter((m) => m.enabled).length}/{models.length})
          </h4>
          <ul className="max-h-64 space-y-0.5 overflow-y-auto pr-1">
            {models.map((m) => (
              <li key={m.id} className="flex items-center gap-2">
                <label className="flex min-w-0 flex-1 items-center justify-between gap-2 rounded px-1 py-0.5 text-sm hover:bg-zinc-100 dark:hover:bg-zinc-800">
                  <span className="min-w-0 flex-1 truncate">
                    {m.displayName} <span className="text-xs text-zinc-500">{m.id}</span>
                  </span>
                  <input
                    type="checkbox"
                    checked={m.enabled}
                    onChange={(e) => void providerActions.setModelEnabled(provider.id, m.id, e.target.checked)}
                    data-testid={`model-toggle-${m.id}`}
                  />
                </label>
                {/* Outside the row's label: a label's control is its first input, which must stay the model's switch. */}
                {provider.custom && <CustomModelAbilities provider={provider} modelId={m.id} />}
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  )
}

function ProviderRow({ provider: p, selected, onSelect }: { provider: ProviderSummary; selected: boolean; onSelect(): void }) {
  const { t } = useTranslation()
  return (
    <li>
      <button
        onClick={onSelect}
        aria-current={selected ? 'true' : undefined}
        data-testid={`provider-${p.id}`}
        className={`flex w-full items-center gap-2.5 rounded-md px-2.5 py-2 text-left text-sm ${
          selected ? 'bg-zinc-200/70 font-medium dark:bg-zinc-800' : 'hover:bg-zinc-100 dark:hover:bg-zinc-800/60'
        }`}
      >
        <ProviderIcon id={p.id} name={p.name} {...(p.custom?.monogram ? { letters: p.custom.monogram } : {})} />
        <span className="min-w-0 flex-1 truncate">{p.name}</span>
        <span className="shrink-0 text-xs text-zinc-500">
          {p.local ? (
            <span className={p.running ? 'text-emerald-600 dark:text-emerald-400' : ''}>{p.running ? t('providers.running') : t('providers.stopped')}</span>
          ) : p.hasKey ? (
            <span className="text-emerald-600 dark:text-emerald-400">{p.last4 ? `•••• ${p.last4}` : t('providers.keySavedShort')}</span>
          ) : null}
        </span>
      </button>
    </li>
  )
}

/**
 * Settings → Providers as a list and the chosen provider's detail: keys (write-only), address,
 * models, connection check. The list pins what is set up (a key, or a local server).
 */
export function ProvidersSection() {
  const { t, i18n } = useTranslation()
  const providers = useProviders((s) => s.providers)
  const [query, setQuery] = useState('')
  const [open, setOpen] = useState<string>()
  useEffect(() => {
    void providerActions.load()
  }, [])
  const { pinned, rest } = useMemo(() => orderProviders(providers, query, i18n.language), [providers, query, i18n.language])
  const selected = providers.find((p) => p.id === open)
  const adding = open === ADD_CUSTOM
  return (
    <section className="@container space-y-3" data-testid="providers-section" id="settings-providers" aria-labelledby="providers-title">
      <h2 id="providers-title" className="text-sm font-semibold tracking-wide text-zinc-500 uppercase">
        {t('providers.title')}
      </h2>
      <div className="grid gap-4 @2xl:grid-cols-[15rem_minmax(0,1fr)]">
        <div className="space-y-2">
          <button
            type="button"
            onClick={() => setOpen(ADD_CUSTOM)}
            aria-current={adding ? 'true' : undefined}
            data-testid="provider-add-custom"
            title={t('providers.custom.addHint')}
            className={`flex w-full items-center gap-2 rounded-md border border-dashed border-zinc-300 px-2.5 py-1.5 text-left text-sm hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800 ${adding ? 'bg-zinc-100 dark:bg-zinc-800' : ''}`}
          >
            <Plus aria-hidden className="size-4 shrink-0" />
            <span className="min-w-0 flex-1 truncate">{t('providers.custom.add')}</span>
          </button>
          <label className="relative block">
            <span className="sr-only">{t('providers.search')}</span>
            <Search aria-hidden className="pointer-events-none absolute top-1/2 left-2.5 size-4 -translate-y-1/2 text-zinc-400" />
            <input type="search" value={query} onChange={(e) => setQuery(e.target.value)} placeholder={t('providers.search')} className={`${input} pl-8`} data-testid="provider-search" />
          </label>
          <div className="max-h-[28rem] overflow-y-auto rounded-lg border border-zinc-200 p-1 @2xl:max-h-[calc(100vh-14rem)] dark:border-zinc-800">
            {pinned.length > 0 && (
              <>
                <h3 className="px-2.5 pt-1.5 pb-1 text-[11px] font-semibold tracking-wide text-zinc-500 uppercase">{t('polish.providersReady')}</h3>
                <ul data-testid="providers-pinned">
                  {pinned.map((p) => (
                    <ProviderRow key={p.id} provider={p} selected={open === p.id} onSelect={() => setOpen(p.id)} />
                  ))}
                </ul>
              </>
            )}
            {rest.length > 0 && (
              <>
                {pinned.length > 0 && <h3 className="px-2.5 pt-2.5 pb-1 text-[11px] font-semibold tracking-wide text-zinc-500 uppercase">{t('polish.providersOther')}</h3>}
                <ul data-testid="providers-rest">
                  {rest.map((p) => (
                    <ProviderRow key={p.id} provider={p} selected={open === p.id} onSelect={() => setOpen(p.id)} />
                  ))}
                </ul>
              </>
            )}
            {pinned.length + rest.length === 0 && <p className="px-2.5 py-2 text-sm text-zinc-500">{t('polish.noProviderMatches')}</p>}
          </div>
        </div>
        <div className="min-w-0 rounded-lg border border-zinc-200 dark:border-zinc-800">
          {adding ? (
            <CustomProviderForm onSaved={(id) => setOpen(id)} />
          ) : selected ? (
            <>
              <div className="flex items-center gap-2.5 px-4 pt-4">
                <ProviderIcon id={selected.id} name={selected.name} className="size-6" {...(selected.custom?.monogram ? { letters: selected.custom.monogram } : {})} />
                <h3 className="text-base font-semibold">{selected.name}</h3>
                {selected.custom && <span className="rounded bg-zinc-100 px-1.5 py-0.5 text-[10px] text-zinc-600 uppercase dark:bg-zinc-800 dark:text-zinc-300">{t('providers.custom.badge')}</span>}
              </div>
              <ProviderDetail key={selected.id} provider={selected} />
            </>
          ) : (
            <p className="p-6 text-sm text-zinc-500" data-testid="provider-detail-empty">
              {t('polish.pickProvider')}
            </p>
          )}
        </div>
      </div>
    </section>
  )
}
