import { useEffect, useMemo, useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import type { ProviderSummary } from '../../../shared/bridge/procedures/providers'
import { describeError } from '../../../shared/errors/catalogue'
import type { AppError } from '../../../shared/errors/app-error'
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

function ProviderDetail({ provider }: { provider: ProviderSummary }) {
  const { t } = useTranslation()
  const models = useProviders((s) => s.models[provider.id])
  const [key, setKey] = useState('')
  const [baseURL, setBaseURL] = useState(provider.baseURL ?? '')
  const [error, setError] = useState<AppError>()
  const [status, setStatus] = useState<string>()
  const [busy, setBusy] = useState<'test' | 'fetch' | 'save'>()
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
  const saveBaseURL = async () => {
    if ((provider.baseURL ?? '') === baseURL.trim()) return
    setError(await providerActions.update(provider.id, { baseURL: baseURL.trim() }))
  }
  return (
    <div className="space-y-4 border-t border-zinc-200 px-4 py-4 dark:border-zinc-800" data-testid={`provider-detail-${provider.id}`}>
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
            {provider.hasKey ? (provider.last4 ? t('providers.keySaved', { last4: provider.last4 }) : t('providers.keySavedShort')) : t('providers.noKey')}
            {provider.apiKeyUrl && (
              <>
                {' · '}
                <a href={provider.apiKeyUrl} target="_blank" rel="noreferrer noopener" className="text-accent underline">
                  {t('providers.getKey')}
                </a>
              </>
            )}
          </p>
          {!provider.keyPersistent && <p className="text-xs text-amber-700 dark:text-amber-400">{t('providers.keyMemory')}</p>}
        </form>
      )}
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
            onClick={async () => {
              setBusy('fetch')
              setError(undefined)
              const r = await providerActions.fetchModels(provider.id)
              setBusy(undefined)
              if (!r.ok) setError(r.error)
              else if (r.value.warning) setStatus(r.value.warning)
            }}
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
      {models && models.length > 0 && (
        <div>
          <h4 className="mb-1 text-xs font-medium">
            {t('providers.models')} ({models.filter((m) => m.enabled).length}/{models.length})
          </h4>
          <ul className="max-h-64 space-y-0.5 overflow-y-auto pr-1">
            {models.map((m) => (
              <li key={m.id}>
                <label className="flex items-center justify-between gap-2 rounded px-1 py-0.5 text-sm hover:bg-zinc-100 dark:hover:bg-zinc-800">
                  <span className="truncate">
                    {m.displayName} <span className="text-xs text-zinc-500">{m.id}</span>
                  </span>
                  <input
                    type="checkbox"
                    checked={m.enabled}
                    onChange={(e) => void providerActions.setModelEnabled(provider.id, m.id, e.target.checked)}
                    data-testid={`model-toggle-${m.id}`}
                  />
                </label>
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  )
}

/** Settings → Providers: keys (write-only), address, models, connection check. */
export function ProvidersSection() {
  const { t } = useTranslation()
  const providers = useProviders((s) => s.providers)
  const [query, setQuery] = useState('')
  const [open, setOpen] = useState<string>()
  useEffect(() => {
    void providerActions.load()
  }, [])
  const shown = useMemo(() => {
    const q = query.trim().toLowerCase()
    return providers.filter((p) => !q || p.name.toLowerCase().includes(q) || p.id.includes(q))
  }, [providers, query])
  return (
    <section className="space-y-3" data-testid="providers-section">
      <h2 className="text-sm font-semibold tracking-wide text-zinc-500 uppercase">{t('providers.title')}</h2>
      <input value={query} onChange={(e) => setQuery(e.target.value)} placeholder={t('providers.search')} className={input} data-testid="provider-search" />
      <ul className="divide-y divide-zinc-200 rounded-lg border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800">
        {shown.map((p) => (
          <li key={p.id}>
            <button
              onClick={() => setOpen(open === p.id ? undefined : p.id)}
              aria-expanded={open === p.id}
              data-testid={`provider-${p.id}`}
              className="flex w-full items-center justify-between px-4 py-2.5 text-left text-sm hover:bg-zinc-50 dark:hover:bg-zinc-900"
            >
              <span className="font-medium">{p.name}</span>
              <span className="flex items-center gap-2 text-xs text-zinc-500">
                {p.local ? (
                  <span className={p.running ? 'text-emerald-600' : ''}>{p.running ? t('providers.running') : t('providers.stopped')}</span>
                ) : p.hasKey ? (
                  <span className="text-emerald-600">{p.last4 ? `•••• ${p.last4}` : t('providers.keySavedShort')}</span>
                ) : (
                  <span>{t('providers.noKey')}</span>
                )}
                <span aria-hidden>{open === p.id ? '▴' : '▾'}</span>
              </span>
            </button>
            {open === p.id && <ProviderDetail provider={p} />}
          </li>
        ))}
      </ul>
    </section>
  )
}
