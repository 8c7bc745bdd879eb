import { useEffect, useId, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { formatBytes, formatDuration, formatRate, percent } from '../../../shared/local/format'
import { isFinalDownloadPhase, type DownloadSnapshot, type FitFigures, type LibraryEntry } from '../../../shared/models-library/types'
import { useLibrary } from './library-store'
import { ProgressBar } from '../../components/progress-bar'

const button = 'rounded border border-zinc-300 px-2 py-0.5 text-xs dark:border-zinc-700'
const primary = 'rounded bg-accent px-2 py-0.5 text-xs text-white disabled:opacity-50'

function EntryRow({ entry }: { entry: LibraryEntry }) {
  const { t } = useTranslation()
  const { openRepo, download } = useLibrary()
  const facts = [
    entry.downloads !== undefined ? t('library.downloadsCount', { count: entry.downloads, n: entry.downloads.toLocaleString('en') }) : '',
    entry.likes !== undefined ? t('library.likes', { count: entry.likes }) : '',
    entry.updatedAt ? t('library.updated', { date: entry.updatedAt.slice(0, 10) }) : '',
    entry.license ?? '',
    entry.sizeBytes !== undefined ? formatBytes(entry.sizeBytes) : ''
  ].filter(Boolean)
  return (
    <li data-testid={`library-entry-${entry.source}`} className="flex items-center gap-3 py-1.5 text-sm">
      <span className="w-20 shrink-0 text-xs text-zinc-500">{t(`library.source.${entry.source}`)}</span>
      <span className="truncate font-mono">{entry.name}</span>
      {entry.gated ? <span className="rounded bg-amber-100 px-1.5 text-xs text-amber-800 dark:bg-amber-900/40 dark:text-amber-300">{t('library.gated')}</span> : null}
      {entry.owner && entry.owner !== 'switchboard' ? <span className="text-xs text-zinc-500">{t(`library.owner.${entry.owner}`)}</span> : null}
      <span className="ml-auto shrink-0 text-xs text-zinc-500">{facts.join(' · ')}</span>
      {entry.source === 'hf' && (
        <button className={button} onClick={() => void openRepo(entry.id)}>
          {t('library.files')}
        </button>
      )}
      {entry.source === 'ollama' && (
        <button className={primary} onClick={() => void download(`ollama:${entry.id}`)}>
          {t('library.download')}
        </button>
      )}
    </li>
  )
}

/** The fit estimate's word and figure for this machine, with its terms on hover. */
export function FitBadge({ fit }: { fit: FitFigures | undefined }) {
  const { t } = useTranslation()
  if (!fit) return <span className="text-xs text-zinc-400">—</span>
  const colour = fit.verdict === 'fits' ? 'text-emerald-700 dark:text-emerald-400' : fit.verdict === 'tight' ? 'text-amber-700 dark:text-amber-400' : 'text-red-700 dark:text-red-400'
  return (
    <span className={`text-xs ${colour}`} title={t('library.fitDetail', { weights: formatBytes(fit.weightsBytes), kv: formatBytes(fit.kvCacheBytes), overhead: formatBytes(fit.overheadBytes), free: formatBytes(fit.availableBytes) })}>
      {t(`library.fit.${fit.verdict}`, { total: formatBytes(fit.totalBytes) })}
      {fit.maxContextThatFits > 0 ? ` · ${t('library.maxContext', { tokens: fit.maxContextThatFits.toLocaleString() })}` : ''}
    </span>
  )
}

function RepoPanel() {
  const { t } = useTranslation()
  const { repo, repoLoading, closeRepo, download, openRepo } = useLibrary()
  const [ctx, setCtx] = useState('')
  if (repoLoading) return <p className="text-xs text-zinc-500">{t('library.reading', { repo: repoLoading })}</p>
  if (!repo) return null
  return (
    <div data-testid="library-repo" className="rounded-lg border border-zinc-200 p-3 dark:border-zinc-800">
      <div className="flex items-center gap-3">
        <span className="font-mono text-sm font-medium">{repo.repo}</span>
        <form
          className="flex items-center gap-1 text-xs text-zinc-500"
          onSubmit={(e) => {
            e.preventDefault()
            const n = Number(ctx)
            if (Number.isInteger(n) && n >= 256) void openRepo(repo.repo, n)
          }}
        >
          <label htmlFor="library-ctx">{t('library.context')}</label>
          <input id="library-ctx" inputMode="numeric" placeholder={String(repo.contextTokens)} value={ctx} onChange={(e) => setCtx(e.target.value)} className="w-20 rounded border border-zinc-300 bg-transparent px-1 dark:border-zinc-700" />
        </form>
        <span className="text-xs text-zinc-500">{t('library.freeMemory', { free: formatBytes(repo.memory.freeRamBytes + (repo.memory.freeVramBytes ?? 0)) })}</span>
        <button className="ml-auto text-xs text-zinc-500 hover:underline" onClick={closeRepo}>
          {t('library.close')}
        </button>
      </div>
      {repo.headerError && <p className="mt-1 text-xs text-amber-700 dark:text-amber-400">{t('library.noHeader', { reason: repo.headerError })}</p>}
      <table className="mt-2 w-full text-left text-sm">
        <thead className="text-xs text-zinc-500">
          <tr>
            <th className="py-1 font-normal">{t('library.quant')}</th>
            <th className="font-normal">{t('library.size')}</th>
            <th className="font-normal">{t('library.fitTitle')}</th>
            <th className="font-normal">{t('library.file')}</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {repo.files.map((f) => (
            <tr key={f.path} data-testid="library-file" className="border-t border-zinc-100 dark:border-zinc-800">
              <td className="py-1 font-mono text-xs">
                {f.quant ?? '?'} {f.recommended && <span className="ml-1 rounded bg-emerald-100 px-1 text-emerald-800 dark:bg-emerald-900/40 dark:text-emerald-300">{t('library.recommended')}</span>}
              </td>
              <td className="text-xs tabular-nums">{formatBytes(f.sizeBytes)}</td>
              <td>{f.projector ? <span className="text-xs text-zinc-500">{t('library.projector')}</span> : <FitBadge fit={f.fit} />}</td>
              <td className="max-w-64 truncate font-mono text-xs text-zinc-500">
                {f.path}
                {f.parts > 1 ? ` ${t('library.parts', { count: f.parts })}` : ''}
              </td>
              <td className="text-right">
                {!f.projector && (
                  <button
                    className={f.fit?.verdict === 'doesNotFit' ? button : primary}
                    onClick={() => void download(`hf:${repo.repo}:${f.path}`, f.fit?.verdict === 'doesNotFit')}
                  >
                    {f.fit?.verdict === 'doesNotFit' ? t('library.downloadAnyway') : t('library.download')}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

/** One download: progress, speed, time left, pause / resume / cancel. */
export function DownloadCard({ d }: { d: DownloadSnapshot }) {
  const { t } = useTranslation()
  const { pause, resume, cancel, dismiss } = useLibrary()
  const final = isFinalDownloadPhase(d.phase)
  const pct = percent(d.fraction)
  return (
    <li data-testid="library-download" data-phase={d.phase} className="rounded-lg border border-zinc-200 p-3 dark:border-zinc-800">
      <div className="flex items-baseline gap-3">
        <span className="truncate font-mono text-sm">{d.ref}</span>
        <span className="text-xs text-zinc-500">{t(`library.phase.${d.phase}`)}</span>
        <span className="ml-auto text-xs tabular-nums">{pct.toFixed(1)}%</span>
      </div>
      <ProgressBar percent={pct} label={d.ref} className="mt-2 h-2 rounded-full" fill={d.phase === 'error' ? 'bg-red-500' : d.phase === 'success' ? 'bg-emerald-500' : 'bg-accent'} />
      <div className="mt-2 flex flex-wrap items-center gap-x-4 text-xs text-zinc-600 dark:text-zinc-400">
        {d.totalBytes > 0 && <span className="tabular-nums">{t('local.bytes', { done: formatBytes(d.completedBytes), total: formatBytes(d.totalBytes) })}</span>}
        {!final && d.bytesPerSecond > 0 && <span className="tabular-nums">{formatRate(d.bytesPerSecond)}</span>}
        {!final && d.etaSeconds !== undefined && <span className="tabular-nums">{t('local.timeLeft', { time: formatDuration(d.etaSeconds) })}</span>}
        <span className="ml-auto flex gap-2">
          {!final && d.phase !== 'paused' && (
            <button className={button} onClick={() => void pause(d.id)}>
              {t('library.pause')}
            </button>
          )}
          {(d.phase === 'paused' || d.phase === 'error') && (
            <button className={primary} onClick={() => void resume(d.id)}>
              {t('library.resume')}
            </button>
          )}
          {d.phase !== 'success' && d.phase !== 'cancelled' && (
            <button className={button} onClick={() => void cancel(d.id)}>
              {t('local.cancelPull')}
            </button>
          )}
          {final && (
            <button className="px-2 text-zinc-500" onClick={() => void dismiss(d.id)}>
              {t('local.dismiss')}
            </button>
          )}
        </span>
      </div>
      {d.resumed && <p className="mt-1 text-xs text-sky-700 dark:text-sky-400">{t('local.resumed', { bytes: formatBytes(d.resumedBytes) })}</p>}
      {d.notes.map((n) => (
        <p key={n} className="mt-1 text-xs text-amber-700 dark:text-amber-400">
          {n}
        </p>
      ))}
      {d.error && (
        <p role="alert" className="mt-1 text-xs text-red-700 dark:text-red-400">
          {d.error.message}
        </p>
      )}
      {d.phase === 'success' && d.path && <p className="mt-1 truncate font-mono text-xs text-zinc-500">{d.path}</p>}
    </li>
  )
}

/** The hub's mirror, the proxy and the Hugging Face token: one form, on the Local models page and in Settings → Model library. */
function LibrarySettingsForm() {
  const { t } = useTranslation()
  const { settings, saveSettings } = useLibrary()
  const [mirror, setMirror] = useState<string | undefined>(undefined)
  const [proxy, setProxy] = useState<string | undefined>(undefined)
  const [registry, setRegistry] = useState<string | undefined>(undefined)
  const [token, setToken] = useState('')
  const [saved, setSaved] = useState(false)
  // The form shows on two pages: its labels must not point at the other's fields.
  const id = useId()
  return (
    <>
      <form
        className="mt-2 flex flex-wrap items-center gap-2"
        onSubmit={(e) => {
          e.preventDefault()
          setSaved(false)
          void saveSettings({
            ...(mirror !== undefined ? { hubEndpoint: mirror.trim() || null } : {}),
            ...(proxy !== undefined ? { proxy: proxy.trim() || null } : {}),
            ...(registry !== undefined ? { ollamaRegistry: registry.trim() || null } : {}),
            ...(token ? { hfToken: token } : {})
          }).then((ok) => {
            if (!ok) return
            setToken('')
            setSaved(true)
          })
        }}
      >
        <label htmlFor={`${id}-mirror`}>{t('library.mirror')}</label>
        <input id={`${id}-mirror`} placeholder="https://huggingface.co" value={mirror ?? settings?.hubEndpoint ?? ''} onChange={(e) => (setMirror(e.target.value), setSaved(false))} className="w-64 rounded border border-zinc-300 bg-transparent px-2 py-1 dark:border-zinc-700" />
        <label htmlFor={`${id}-proxy`}>{t('library.proxy')}</label>
        <input id={`${id}-proxy`} placeholder={t('library.proxyPlaceholder')} value={proxy ?? settings?.proxy ?? ''} onChange={(e) => (setProxy(e.target.value), setSaved(false))} className="w-56 rounded border border-zinc-300 bg-transparent px-2 py-1 dark:border-zinc-700" />
        <label htmlFor={`${id}-registry`} title={t('library.registryHint')}>{t('library.registry')}</label>
        <input id={`${id}-registry`} placeholder="https://registry.ollama.ai" title={t('library.registryHint')} value={registry ?? settings?.ollamaRegistry ?? ''} onChange={(e) => (setRegistry(e.target.value), setSaved(false))} className="w-56 rounded border border-zinc-300 bg-transparent px-2 py-1 dark:border-zinc-700" />
        <label htmlFor={`${id}-token`}>{t('library.token')}</label>
        <input id={`${id}-token`} type="password" autoComplete="off" placeholder={settings?.hasHfToken ? t('library.tokenSet') : 'hf_…'} value={token} onChange={(e) => setToken(e.target.value)} className="w-48 rounded border border-zinc-300 bg-transparent px-2 py-1 dark:border-zinc-700" />
        <button type="submit" className={primary}>
          {t('local.save')}
        </button>
        {settings?.hasHfToken && (
          <button type="button" className={button} onClick={() => void saveSettings({ hfToken: null })}>
            {t('library.removeToken')}
          </button>
        )}
        {saved && (
          <span role="status" className="text-emerald-700 dark:text-emerald-400">
            {t('library.saved')}
          </span>
        )}
      </form>
      <p className="mt-1 text-zinc-500">{t('library.tokenHint')}</p>
      <p className="mt-1 text-zinc-500">{t('library.registryHint')}</p>
    </>
  )
}

function LibrarySettings() {
  const { t } = useTranslation()
  return (
    <details className="text-xs">
      <summary className="cursor-pointer text-zinc-500 select-none">{t('library.settings')}</summary>
      <LibrarySettingsForm />
    </details>
  )
}

/** Settings → Model library: where the errors that need a Hugging Face token send the user. */
export function ModelLibrarySettingsSection() {
  const { t } = useTranslation()
  const loadSettings = useLibrary((s) => s.loadSettings)
  useEffect(() => {
    void loadSettings()
  }, [loadSettings])
  return (
    <section className="space-y-2 text-xs" data-testid="settings-model-library-form">
      <h2 className="text-sm font-semibold tracking-wide text-zinc-500 uppercase">{t('library.settingsTitle')}</h2>
      <LibrarySettingsForm />
    </section>
  )
}

/** Search Hugging Face and the Ollama library, see models on disk, check the fit, download with resume. */
export function ModelLibrarySection() {
  const { t } = useTranslation()
  const { search, searching, entries, sourceErrors, error, order, downloads, sync, loadSettings } = useLibrary()
  const [query, setQuery] = useState('')
  useEffect(() => {
    void sync()
    void loadSettings()
    void search('')
  }, [sync, loadSettings, search])
  return (
    <div className="space-y-3" data-testid="model-library">
      <form
        className="flex items-center gap-2"
        onSubmit={(e) => {
          e.preventDefault()
          void search(query.trim())
        }}
      >
        <input
          type="search"
          data-testid="library-search"
          aria-label={t('library.searchPlaceholder')}
          placeholder={t('library.searchPlaceholder')}
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          className="w-96 rounded-md border border-zinc-300 bg-transparent px-3 py-1.5 text-sm dark:border-zinc-700 dark:bg-zinc-900"
        />
        <button type="submit" disabled={searching} className="rounded-md bg-accent px-3 py-1.5 text-sm text-white disabled:opacity-50">
          {t('library.search')}
        </button>
      </form>
      <LibrarySettings />
      {error && (
        <p role="alert" className="text-xs text-red-700 dark:text-red-400">
          {error.message}
        </p>
      )}
      {sourceErrors.map((e) => (
        <p key={e.source} className="text-xs text-amber-700 dark:text-amber-400">
          {t(`library.source.${e.source}`)}: {e.message}
        </p>
      ))}
      <RepoPanel />
      {order.length > 0 && (
        <ul className="space-y-2" aria-label={t('local.downloads')}>
          {order.map((id) => (downloads[id] ? <DownloadCard key={id} d={downloads[id]} /> : null))}
        </ul>
      )}
      <ul className="divide-y divide-zinc-100 dark:divide-zinc-800" aria-label={t('library.results')}>
        {entries.map((e) => (
          <EntryRow key={`${e.source}:${e.id}`} entry={e} />
        ))}
      </ul>
    </div>
  )
}
