import { useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import type { ProviderSummary } from '../../../shared/bridge/procedures/providers'
import { slugFromName, type CustomProvider, type CustomProviderModel } from '../../../shared/data/custom-provider'
import type { AppError } from '../../../shared/errors/app-error'
import { providerActions } from './providers-store'

const input = 'w-full rounded-md border border-zinc-300 bg-transparent px-3 py-1.5 text-sm dark:border-zinc-700'
const button = 'rounded-md border border-zinc-300 px-2.5 py-1 text-xs hover:bg-zinc-100 disabled:opacity-50 dark:border-zinc-700 dark:hover:bg-zinc-800'

const modelsFromText = (text: string, keep: readonly CustomProviderModel[]): CustomProviderModel[] => {
  const ids = [...new Set(text.split(/[\n,]/).map((s) => s.trim()).filter(Boolean))]
  return ids.map((id) => keep.find((m) => m.id === id) ?? { id })
}

/**
 * Adds a custom OpenAI-compatible provider (`existing` absent) or edits one: name, address,
 * optional key, icon letters and the model ids typed by hand. The key goes to the keychain
 * and the field is cleared at once, like every key field.
 */
export function CustomProviderForm({ existing, onSaved }: { existing?: ProviderSummary; onSaved(providerId: string): void }) {
  const { t } = useTranslation()
  const custom = existing?.custom
  const [name, setName] = useState(custom?.name ?? '')
  const [slug, setSlug] = useState(custom?.slug ?? '')
  const [baseUrl, setBaseUrl] = useState(custom?.baseUrl ?? '')
  const [apiKey, setApiKey] = useState('')
  const [monogram, setMonogram] = useState(custom?.monogram ?? '')
  const [models, setModels] = useState((custom?.models ?? []).map((m) => m.id).join('\n'))
  const [error, setError] = useState<AppError>()
  const [busy, setBusy] = useState(false)
  const effectiveSlug = custom?.slug ?? (slug.trim() || slugFromName(name))

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const key = apiKey
    setApiKey('')
    setBusy(true)
    const next: CustomProvider = {
      slug: effectiveSlug,
      name: name.trim(),
      baseUrl: baseUrl.trim(),
      ...(monogram.trim() ? { monogram: monogram.trim() } : {}),
      models: modelsFromText(models, custom?.models ?? [])
    }
    const result = await providerActions.saveCustom(next, { create: !custom, ...(key.trim() ? { apiKey: key } : {}) })
    setBusy(false)
    if (!result.ok) setError(result.error)
    else {
      setError(undefined)
      onSaved(result.value.id)
    }
  }

  return (
    <form onSubmit={submit} className="space-y-3 px-4 py-4" data-testid="custom-provider-form">
      {!custom && (
        <>
          <h3 className="text-base font-semibold">{t('providers.custom.title')}</h3>
          <p className="text-xs text-zinc-500">{t('providers.custom.addHint')}</p>
        </>
      )}
      <div className="grid gap-3 sm:grid-cols-2">
        <label className="block space-y-1">
          <span className="block text-xs font-medium">{t('providers.custom.name')} *</span>
          <input required value={name} onChange={(e) => setName(e.target.value)} className={input} data-testid="custom-name" />
        </label>
        <label className="block space-y-1">
          <span className="block text-xs font-medium">{t('providers.custom.id')}</span>
          <input
            value={custom ? custom.slug : slug}
            disabled={Boolean(custom)}
            onChange={(e) => setSlug(e.target.value.toLowerCase())}
            placeholder={slugFromName(name) || 'my-gateway'}
            className={`${input} font-mono`}
            data-testid="custom-slug"
          />
        </label>
      </div>
      <label className="block space-y-1">
        <span className="block text-xs font-medium">{t('providers.custom.baseUrl')} *</span>
        <input required type="url" value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} placeholder="http://localhost:4000/v1" className={input} data-testid="custom-base-url" />
      </label>
      <div className="grid gap-3 sm:grid-cols-[minmax(0,1fr)_8rem]">
        {!custom && (
          <label className="block space-y-1">
            <span className="block text-xs font-medium">{t('providers.custom.apiKey')}</span>
            <input type="password" autoComplete="off" value={apiKey} onChange={(e) => setApiKey(e.target.value)} placeholder="sk-…" className={`${input} font-mono`} data-testid="custom-api-key" />
          </label>
        )}
        <label className="block space-y-1">
          <span className="block text-xs font-medium">{t('providers.custom.monogram')}</span>
          <input value={monogram} maxLength={2} onChange={(e) => setMonogram(e.target.value)} className={input} data-testid="custom-monogram" />
        </label>
      </div>
      <label className="block space-y-1">
        <span className="block text-xs font-medium">{t('providers.custom.models')}</span>
        <textarea value={models} onChange={(e) => setModels(e.target.value)} rows={3} className={`${input} font-mono text-xs`} data-testid="custom-models" />
      </label>
      {error && (
        <p role="alert" className="text-xs text-red-600 dark:text-red-400" data-testid="custom-error">
          {error.message}
        </p>
      )}
      <div className="flex flex-wrap gap-2">
        <button type="submit" disabled={busy || !name.trim() || !baseUrl.trim() || !effectiveSlug} className={button} data-testid="custom-save">
          {custom ? t('providers.custom.saveChanges') : t('providers.custom.create')}
        </button>
        {custom && existing && (
          <button
            type="button"
            className={`${button} text-red-700 dark:text-red-400`}
            data-testid="custom-delete"
            onClick={() => {
              if (window.confirm(t('providers.custom.confirmDelete', { name: existing.name }))) void providerActions.removeCustom(existing.id)
            }}
          >
            {t('providers.custom.delete')}
          </button>
        )}
      </div>
    </form>
  )
}

/** The abilities the user sets for one model of a custom provider (the server does not say them). */
export function CustomModelAbilities({ provider, modelId }: { provider: ProviderSummary; modelId: string }) {
  const { t } = useTranslation()
  const custom = provider.custom
  if (!custom) return null
  const own = custom.models.find((m) => m.id === modelId)
  const toggle = (ability: 'vision' | 'functionCall' | 'reasoning', on: boolean) => {
    const updated: CustomProviderModel = { ...(own ?? { id: modelId }), [ability]: on }
    const models = own ? custom.models.map((m) => (m.id === modelId ? updated : m)) : [...custom.models, updated]
    void providerActions.saveCustom({ ...custom, models }, { create: false })
  }
  return (
    <span className="flex shrink-0 items-center gap-2 text-[11px] text-zinc-500" role="group" aria-label={`${t('providers.custom.abilities')} ${modelId}`}>
      {(['vision', 'functionCall', 'reasoning'] as const).map((ability) => (
        <label key={ability} className="flex items-center gap-0.5">
          <input type="checkbox" checked={Boolean(own?.[ability])} onChange={(e) => toggle(ability, e.target.checked)} data-testid={`ability-${ability}-${modelId}`} />
          {t(`providers.custom.${ability}`)}
        </label>
      ))}
    </span>
  )
}
