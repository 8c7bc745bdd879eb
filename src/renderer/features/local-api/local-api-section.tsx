import { useCallback, useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Copy, KeyRound, Plus, Trash2 } from 'lucide-react'
import type { LocalApiSettingsPatch, LocalApiStatus } from '../../../shared/bridge/procedures/local-api'
import { bridge } from '../../stores/app-store'
import { examples, parseAliases } from './local-api-text'
import { AllowListEditor } from './allow-list-editor'
import { CacheHit, LocalApiModelUsage } from './local-api-usage'
import { AgentsSection } from './agents-section'
import { checkHostName, checkOrigin } from '../../../shared/security/local-api-allow-lists'

const input = 'mt-1 block w-full rounded-md border border-zinc-300 bg-transparent px-2 py-1.5 text-sm dark:border-zinc-700'
const button = 'inline-flex items-center gap-1.5 rounded-md border border-zinc-300 px-3 py-1.5 text-sm hover:bg-zinc-100 disabled:opacity-50 dark:border-zinc-700 dark:hover:bg-zinc-800'

/** The address a client should use; a wildcard bind is reached through loopback from this machine. */
const clientBase = (status: LocalApiStatus): string => {
  const host = status.host === '0.0.0.0' || status.host === '::' ? '127.0.0.1' : status.host.includes(':') ? `[${status.host}]` : status.host
  return status.url ?? `http://${host}:${status.port}`
}


/** Settings → Local API: on/off, address, keys (shown once), per-key spend, and copyable examples. */
export function LocalApiSection() {
  const { t } = useTranslation()
  const [status, setStatus] = useState<LocalApiStatus>()
  const [error, setError] = useState<string>()
  const [name, setName] = useState('')
  const [models, setModels] = useState('')
  const [cap, setCap] = useState('')
  const [rate, setRate] = useState('')
  const [secret, setSecret] = useState<string>()
  const [copied, setCopied] = useState<string>()

  const load = useCallback(async () => {
    const r = await bridge().call('localApi.status', {})
    if (r.ok) setStatus(r.value)
    else setError(r.error.message)
  }, [])
  useEffect(() => {
    void load()
  }, [load])

  const answer = (r: { ok: true; value: LocalApiStatus } | { ok: false; error: { message: string } }) => {
    if (r.ok) {
      setStatus(r.value)
      setError(undefined)
    } else setError(r.error.message)
  }
  const update = async (patch: LocalApiSettingsPatch) => answer(await bridge().call('localApi.update', patch))
  const createKey = async () => {
    const r = await bridge().call('localApi.createKey', {
      name: name.trim(),
      ...(models.trim() ? { allowedModels: models.split(',').map((m) => m.trim()).filter(Boolean) } : {}),
      ...(cap.trim() ? { spendCapUsd: Number(cap) } : {}),
      ...(rate.trim() ? { rateLimitPerMinute: Math.round(Number(rate)) } : {})
    })
    if (!r.ok) return setError(r.error.message)
    setSecret(r.value.secret)
    setName('')
    setModels('')
    setCap('')
    setRate('')
    await load()
  }
  const copy = (id: string, text: string) => {
    void navigator.clipboard?.writeText(text).then(() => setCopied(id))
  }

  if (!status) return error ? <p className="text-sm text-red-600">{error}</p> : null
  const base = clientBase(status)
  const wide = !['127.0.0.1', 'localhost', '::1'].includes(status.host)
  return (
    <section className="space-y-4" data-testid="local-api-section">
      <h2 className="text-sm font-semibold tracking-wide text-zinc-500 uppercase">{t('localApi.title')}</h2>
      <p className="text-sm text-zinc-600 dark:text-zinc-400">{t('localApi.intro')}</p>
      {!status.canChange && <p className="text-sm text-amber-700 dark:text-amber-400">{t('localApi.readOnly')}</p>}
      <label className="flex items-center gap-2 text-sm font-medium">
        <input type="checkbox" checked={status.enabled} disabled={!status.canChange} onChange={(e) => {
            // Shown at once; the answer (running, or why not) follows.
            setStatus({ ...status, enabled: e.target.checked })
            void update({ enabled: e.target.checked })
          }} data-testid="local-api-enabled" />
        {t('localApi.enabled')}
      </label>
      <div className="flex flex-wrap gap-4">
        <label className="w-56 text-sm font-medium">
          {t('localApi.host')}
          <input className={input} defaultValue={status.host} key={`h${status.host}`} disabled={!status.canChange} onBlur={(e) => e.target.value.trim() !== status.host && void update({ host: e.target.value.trim() })} data-testid="local-api-host" />
        </label>
        <label className="w-32 text-sm font-medium">
          {t('localApi.port')}
          <input className={input} type="number" min={1} max={65535} defaultValue={status.port} key={`p${status.port}`} disabled={!status.canChange} onBlur={(e) => Number(e.target.value) !== status.port && void update({ port: Number(e.target.value) })} data-testid="local-api-port" />
        </label>
      </div>
      {wide && <p className="rounded-md border border-amber-400 bg-amber-50 p-2 text-sm text-amber-900 dark:bg-amber-950 dark:text-amber-200" role="alert">{t('localApi.lanWarning', { host: status.host })}</p>}
      <p className="text-sm" data-testid="local-api-state">
        {status.url ? t('localApi.running', { url: `${status.url}/v1` }) : status.enabled ? (status.error ?? t('localApi.starting')) : t('localApi.off')}
      </p>
      {error && (
        <p className="text-sm text-red-600" role="alert" data-testid="local-api-error">
          {error}
        </p>
      )}

      <h3 className="text-sm font-semibold">{t('localApi.keys')}</h3>
      {secret && (
        <div className="space-y-1 rounded-md border border-emerald-500 p-2" data-testid="local-api-secret">
          <p className="text-sm font-medium">{t('localApi.secretOnce')}</p>
          <div className="flex items-center gap-2">
            <code className="min-w-0 flex-1 truncate font-mono text-xs">{secret}</code>
            <button type="button" className={button} onClick={() => copy('secret', secret)}>
              <Copy size={14} aria-hidden /> {copied === 'secret' ? t('localApi.copied') : t('localApi.copy')}
            </button>
          </div>
        </div>
      )}
      <ul className="divide-y divide-zinc-200 text-sm dark:divide-zinc-800" data-testid="local-api-keys">
        {status.keys.length === 0 && <li className="py-2 text-zinc-500">{t('localApi.noKeys')}</li>}
        {status.keys.map((k) => (
          <li key={k.id} className="flex items-center gap-3 py-2" data-testid="local-api-key">
            <KeyRound size={14} aria-hidden className="shrink-0 text-zinc-500" />
            <span className="font-medium">{k.name}</span>
            <code className="font-mono text-xs text-zinc-500">{k.prefix}…</code>
            <span className="text-zinc-500">{t('localApi.spent', { count: k.calls, usd: k.spentUsd.toFixed(4) })}{k.spendCapUsd !== undefined ? ` / $${k.spendCapUsd}` : ''}</span>
            <CacheHit rate={k.cacheHitRate} />
            {k.allowedModels && <span className="truncate text-zinc-500">{k.allowedModels.join(', ')}</span>}
            <span className="flex-1" />
            {k.revokedAt ? (
              <span className="text-zinc-500">{t('localApi.revoked')}</span>
            ) : (
              <button type="button" className={button} disabled={!status.canChange} onClick={async () => answer(await bridge().call('localApi.revokeKey', { id: k.id }))} aria-label={t('localApi.revokeNamed', { name: k.name })}>
                <Trash2 size={14} aria-hidden /> {t('localApi.revoke')}
              </button>
            )}
          </li>
        ))}
      </ul>
      <LocalApiModelUsage refresh={status} />
      {status.canChange && (
        <form
          className="grid gap-2 sm:grid-cols-2"
          onSubmit={(e) => {
            e.preventDefault()
            void createKey()
          }}
        >
          <label className="text-sm font-medium">
            {t('localApi.keyName')}
            <input className={input} value={name} onChange={(e) => setName(e.target.value)} required maxLength={100} data-testid="local-api-key-name" />
          </label>
          <label className="text-sm font-medium">
            {t('localApi.keyModels')}
            <input className={input} value={models} onChange={(e) => setModels(e.target.value)} placeholder="openai/*, ollama/llama3.2" />
          </label>
          <label className="text-sm font-medium">
            {t('localApi.keyRate')}
            <input className={input} type="number" min={1} value={rate} onChange={(e) => setRate(e.target.value)} />
          </label>
          <label className="text-sm font-medium">
            {t('localApi.keyCap')}
            <input className={input} type="number" min={0} step="0.01" value={cap} onChange={(e) => setCap(e.target.value)} />
          </label>
          <div>
            <button type="submit" className={button} disabled={!name.trim()} data-testid="local-api-create-key">
              <Plus size={14} aria-hidden /> {t('localApi.createKey')}
            </button>
          </div>
        </form>
      )}

      <label className="block text-sm font-medium">
        {t('localApi.aliases')}
        <textarea
          className={`${input} font-mono`}
          rows={3}
          placeholder="fast = openai/gpt-4o-mini"
          defaultValue={Object.entries(status.aliases)
            .map(([alias, id]) => `${alias} = ${id}`)
            .join('\n')}
          key={JSON.stringify(status.aliases)}
          disabled={!status.canChange}
          onBlur={(e) => {
            const aliases = parseAliases(e.target.value)
            if (typeof aliases === 'string') return setError(aliases)
            if (JSON.stringify(aliases) !== JSON.stringify(status.aliases)) void update({ aliases })
          }}
          data-testid="local-api-aliases"
        />
      </label>

      <AllowListEditor
        id="origins"
        label={t('localApi.allowedOrigins')}
        hint={t('localApi.allowedOriginsHint')}
        placeholder="https://app.example.com"
        entries={status.allowedOrigins}
        check={checkOrigin}
        disabled={!status.canChange}
        save={(allowedOrigins) => update({ allowedOrigins })}
      />
      <AllowListEditor
        id="hosts"
        label={t('localApi.allowedHosts')}
        hint={t('localApi.allowedHostsHint')}
        placeholder="mybox.local"
        entries={status.allowedHosts}
        check={checkHostName}
        disabled={!status.canChange}
        save={(allowedHosts) => update({ allowedHosts })}
      />

      <h3 className="text-sm font-semibold">{t('localApi.examples')}</h3>
      <p className="text-sm text-zinc-600 dark:text-zinc-400">{t('localApi.modelIds')}</p>
      {examples(base, secret ?? '<your key>', 'openai/gpt-4o-mini').map((ex) => (
        <div key={ex.id} className="space-y-1">
          <div className="flex items-center justify-between">
            <span className="text-xs font-medium text-zinc-500">{ex.label}</span>
            <button type="button" className={button} onClick={() => copy(ex.id, ex.code)} data-testid={`local-api-copy-${ex.id}`}>
              <Copy size={14} aria-hidden /> {copied === ex.id ? t('localApi.copied') : t('localApi.copy')}
            </button>
          </div>
          <pre className="overflow-x-auto rounded-md bg-zinc-100 p-2 font-mono text-xs dark:bg-zinc-900">{ex.code}</pre>
        </div>
      ))}

      <AgentsSection base={base} secret={secret} canTest={status.canChange && status.url !== undefined} copied={copied} copy={copy} />
    </section>
  )
}
