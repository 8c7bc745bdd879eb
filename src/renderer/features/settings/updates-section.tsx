import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { CommandLineStatus, UpdateMode, UpdateStatus } from '../../../shared/bridge/procedures/updates'
import { UPDATE_MODE_VALUES } from '../../../shared/bridge/procedures/updates'
import { bridge } from '../../stores/app-store'

/** Settings → About: how the installed app updates (automatic / notify / off), the download, the restart. */
export function UpdatesSection() {
  const { t } = useTranslation()
  const [status, setStatus] = useState<UpdateStatus>()
  const [error, setError] = useState<string>()
  useEffect(() => {
    const handle = bridge().stream('app.update.status', {}, { onEvent: (s) => setStatus(s) })
    return () => handle.cancel()
  }, [])
  const act = async (proc: 'app.update.check' | 'app.update.download') => {
    setError(undefined)
    const r = await bridge().call(proc, {})
    if (r.ok) setStatus(r.value)
    else setError(r.error.message)
  }
  const setMode = async (mode: UpdateMode) => {
    const r = await bridge().call('app.update.setMode', { mode })
    if (r.ok) setStatus(r.value)
    else setError(r.error.message)
  }
  const restart = async () => {
    const r = await bridge().call('app.update.restart', {})
    if (!r.ok) setError(r.error.message)
  }
  if (!status) return null
  if (status.phase === 'unavailable') {
    return (
      <div className="space-y-1" data-testid="updates">
        <h3 className="text-sm font-medium">{t('updates.title')}</h3>
        <p className="text-sm text-zinc-500" data-testid="updates-unavailable">
          {t('updates.unavailable')} {status.message}
        </p>
      </div>
    )
  }
  const busy = status.phase === 'checking' || status.phase === 'downloading'
  return (
    <div className="space-y-3" data-testid="updates">
      <h3 className="text-sm font-medium">{t('updates.title')}</h3>
      <fieldset>
        <legend className="mb-2 text-sm">{t('updates.mode')}</legend>
        <div role="radiogroup" className="inline-flex rounded-lg border border-zinc-300 p-0.5 dark:border-zinc-700">
          {UPDATE_MODE_VALUES.map((mode) => (
            <button
              key={mode}
              role="radio"
              aria-checked={status.mode === mode}
              data-testid={`update-mode-${mode}`}
              onClick={() => void setMode(mode)}
              className={`rounded-md px-3 py-1.5 text-sm ${status.mode === mode ? 'bg-accent text-white' : 'text-zinc-600 dark:text-zinc-300'}`}
            >
              {t(`updates.modes.${mode}`)}
            </button>
          ))}
        </div>
      </fieldset>
      <p className="text-sm" role="status" data-testid="update-phase">
        {t(`updates.phase.${status.phase}`, { version: status.version ?? '', current: status.currentVersion })}
        {status.message ? ` ${status.message}` : ''}
      </p>
      {status.phase === 'downloading' && (
        <progress className="w-64" max={100} value={status.percent ?? 0} aria-label={t('updates.progress', { percent: status.percent ?? 0 })} data-testid="update-progress" />
      )}
      <div className="flex gap-2">
        <button type="button" disabled={busy} onClick={() => void act('app.update.check')} className="rounded-md border border-zinc-300 px-3 py-1.5 text-sm disabled:opacity-50 dark:border-zinc-700" data-testid="update-check">
          {t('updates.check')}
        </button>
        {(status.phase === 'available' || (status.phase === 'error' && status.version)) && (
          <button type="button" onClick={() => void act('app.update.download')} className="bg-accent rounded-md px-3 py-1.5 text-sm text-white" data-testid="update-download">
            {t('updates.download', { version: status.version })}
          </button>
        )}
        {status.phase === 'downloaded' && (
          <button type="button" onClick={() => void restart()} className="bg-accent rounded-md px-3 py-1.5 text-sm text-white" data-testid="update-restart">
            {t('updates.restart', { version: status.version })}
          </button>
        )}
      </div>
      {error && (
        <p className="text-sm text-red-600" role="alert">
          {error}
        </p>
      )}
    </div>
  )
}

/** Settings → About: put the `switchboard` command on PATH (desktop app only). */
export function CommandLineSetting() {
  const { t } = useTranslation()
  const [status, setStatus] = useState<CommandLineStatus>()
  const [error, setError] = useState<string>()
  useEffect(() => {
    void bridge()
      .call('app.commandLine.status', {})
      .then((r) => r.ok && setStatus(r.value))
  }, [])
  const install = async () => {
    setError(undefined)
    const r = await bridge().call('app.commandLine.install', {})
    if (r.ok) setStatus(r.value)
    else setError(r.error.message)
  }
  if (!status) return null
  return (
    <div className="space-y-2" data-testid="command-line">
      <h3 className="text-sm font-medium">{t('updates.cliTitle')}</h3>
      {!status.available ? (
        <p className="text-sm text-zinc-500">{status.advice}</p>
      ) : (
        <>
          <p className="text-sm text-zinc-500">{status.installed ? t('updates.cliInstalled', { file: status.file }) : t('updates.cliHint')}</p>
          {status.advice && <p className="text-sm">{status.advice}</p>}
          <button type="button" onClick={() => void install()} className="rounded-md border border-zinc-300 px-3 py-1.5 text-sm dark:border-zinc-700" data-testid="command-line-install">
            {status.installed ? t('updates.cliReinstall') : t('updates.cliInstall')}
          </button>
        </>
      )}
      {error && (
        <p className="text-sm text-red-600" role="alert">
          {error}
        </p>
      )}
    </div>
  )
}
