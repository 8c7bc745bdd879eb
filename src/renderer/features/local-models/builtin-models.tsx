import { Fragment, useCallback, useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { BuiltinStatus } from '../../../shared/engine/builtin-status'
import type { AppError } from '../../../shared/errors/app-error'
import { formatBytes } from '../../../shared/local/format'
import { bridge, useApp } from '../../stores/app-store'
import { BuiltinSettingsForm, ContextEditor } from './builtin-settings'

const th = 'px-3 py-2 text-left text-xs font-medium text-zinc-500'
const td = 'px-3 py-2 text-sm'
const button = 'rounded border border-zinc-300 px-2 py-0.5 text-xs hover:bg-zinc-100 disabled:opacity-50 dark:border-zinc-700 dark:hover:bg-zinc-800'

/** The built-in engine on the Local models page: models found on disk, what is loaded, real memory. */
export function BuiltinModels() {
  const { t, i18n } = useTranslation()
  const browser = useApp((s) => s.info?.mode) === 'browser'
  const [status, setStatus] = useState<BuiltinStatus>()
  const [error, setError] = useState<{ model?: string; error: AppError }>()
  const [busy, setBusy] = useState<string>()
  const [path, setPath] = useState('')
  /** The model whose context length is being edited. */
  const [editing, setEditing] = useState<string>()

  const refresh = useCallback(async () => {
    const r = await bridge().call('engine.status', {})
    if (r.ok) setStatus(r.value)
    else setError({ error: r.error })
  }, [])
  useEffect(() => {
    void refresh()
    const timer = setInterval(() => void refresh(), 5_000)
    return () => clearInterval(timer)
  }, [refresh])

  const act = async (model: string, action: 'load' | 'unload' | 'loadAnyway') => {
    setBusy(model)
    setError(undefined)
    const r = action === 'unload' ? await bridge().call('engine.unload', { model }) : await bridge().call('engine.load', { model, loadAnyway: action === 'loadAnyway' })
    if (!r.ok) setError({ model, error: r.error })
    setBusy(undefined)
    await refresh()
  }
  const addPath = async () => {
    if (!path.trim()) return
    const r = await bridge().call('engine.addPath', { path: path.trim() })
    if (r.ok) {
      setStatus(r.value)
      setPath('')
    } else setError({ error: r.error })
  }
  const removePath = async (p: string) => {
    const r = await bridge().call('engine.removePath', { path: p })
    if (r.ok) setStatus(r.value)
  }

  const tooLarge = (error?.error.detail as { reason?: string } | undefined)?.reason === 'too-large'
  return (
    <div className="space-y-3" data-testid="builtin-models">
      <p className="text-xs text-zinc-500">{t('local.builtin.intro')}</p>
      {status && (
        <p className="text-xs text-zinc-600 dark:text-zinc-400" data-testid="builtin-memory">
          {status.running && status.rssBytes !== undefined
            ? t('local.builtin.memory', { rss: formatBytes(status.rssBytes), budget: formatBytes(status.budgetBytes), total: formatBytes(status.totalBytes), threads: status.threads })
            : t('local.builtin.notRunning')}
        </p>
      )}
      {status && <BuiltinSettingsForm status={status} onSaved={setStatus} />}
      {error && (
        <div role="alert" className="space-y-1 text-sm text-red-700 dark:text-red-400" data-testid="builtin-error">
          <p>{error.error.message}</p>
          {tooLarge && error.model && (
            <button className={button} onClick={() => void act(error.model!, 'loadAnyway')} data-testid="builtin-load-anyway">
              {t('local.builtin.loadAnyway')}
            </button>
          )}
        </div>
      )}
      {status && status.models.length === 0 && <p className="text-sm text-zinc-500">{t('local.builtin.none')}</p>}
      {status && status.models.length > 0 && (
        <table className="w-full border-collapse" data-testid="builtin-table">
          <thead className="border-b border-zinc-200 dark:border-zinc-800">
            <tr>
              <th className={th}>{t('local.builtin.col.name')}</th>
              <th className={th}>{t('local.builtin.col.source')}</th>
              <th className={`${th} text-right`}>{t('local.builtin.col.size')}</th>
              <th className={th}>{t('local.builtin.col.state')}</th>
              <th className={th} />
            </tr>
          </thead>
          <tbody>
            {status.models.map((m) => {
              const loaded = status.loaded.find((l) => l.modelId === m.id)
              return (
                <Fragment key={m.id}>
                <tr data-testid={`builtin-row-${m.id}`} className="border-b border-zinc-100 dark:border-zinc-800/60">
                  <td className={`${td} font-mono`} title={m.path}>
                    {m.id}
                    {m.projector && (
                      <span className="block font-sans text-xs text-zinc-500" data-testid={`builtin-projector-${m.id}`}>
                        {t('local.builtin.projectorUnused')}
                      </span>
                    )}
                  </td>
                  <td className={`${td} text-zinc-500`}>{t(`local.builtin.source.${m.source}`)}</td>
                  <td className={`${td} text-right tabular-nums`}>{formatBytes(m.sizeBytes)}</td>
                  <td className={`${td} text-zinc-600 dark:text-zinc-400`}>
                    {loaded
                      ? `${t('local.builtin.loaded')} · ${t('local.builtin.contextLine', { context: loaded.contextSize.toLocaleString(i18n.language), reason: t(`local.builtin.reason.${loaded.contextReason}`) })}${loaded.slots ? ` · ${t('local.builtin.slots', { count: loaded.slots })}` : ''}`
                      : '—'}
                  </td>
                  <td className={`${td} space-x-1 text-right`}>
                    <button
                      className={button}
                      aria-expanded={editing === m.id}
                      onClick={() => setEditing(editing === m.id ? undefined : m.id)}
                      data-testid={`builtin-context-${m.id}`}
                    >
                      {t('local.builtin.context.button')}
                    </button>
                    <button className={button} disabled={busy === m.id} onClick={() => void act(m.id, loaded ? 'unload' : 'load')} data-testid={`builtin-${loaded ? 'unload' : 'load'}-${m.id}`}>
                      {loaded ? t('local.builtin.unload') : t('local.builtin.load')}
                    </button>
                  </td>
                </tr>
                {editing === m.id && (
                  <tr className="border-b border-zinc-100 dark:border-zinc-800/60">
                    <td className={td} colSpan={5}>
                      <ContextEditor model={m.id} status={status} onSaved={setStatus} />
                    </td>
                  </tr>
                )}
                </Fragment>
              )
            })}
          </tbody>
        </table>
      )}
      {status?.problems.map((p) => (
        <p key={p.path} className="text-xs text-amber-700 dark:text-amber-400">
          {p.message}
        </p>
      ))}
      {/* A path on the host is for the desktop app (the client policy refuses it in browser mode). */}
      {!browser && (
        <form
          className="flex items-center gap-2"
          onSubmit={(e) => {
            e.preventDefault()
            void addPath()
          }}
        >
          <label className="sr-only" htmlFor="builtin-path">
            {t('local.builtin.addPath')}
          </label>
          <input
            id="builtin-path"
            value={path}
            onChange={(e) => setPath(e.target.value)}
            placeholder={t('local.builtin.pathPlaceholder')}
            className="w-96 rounded border border-zinc-300 bg-transparent px-2 py-1 text-sm dark:border-zinc-700"
            data-testid="builtin-path"
          />
          <button type="submit" className={button} disabled={!path.trim()}>
            {t('local.builtin.add')}
          </button>
        </form>
      )}
      {status?.modelPaths.map((p) => (
        <p key={p} className="flex items-center gap-2 text-xs text-zinc-500">
          <span className="font-mono">{p}</span>
          <button className={button} onClick={() => void removePath(p)}>
            {t('local.builtin.remove')}
          </button>
        </p>
      ))}
    </div>
  )
}
