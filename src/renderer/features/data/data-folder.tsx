import { useCallback, useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { DataFolderInfo } from '../../../shared/bridge/procedures/data'
import type { AppError } from '../../../shared/errors/app-error'
import { bridge } from '../../stores/app-store'
import { DataError } from './data-error'
import { formatBytes } from './format'

const KINDS = ['conversations', 'files', 'images', 'speech', 'backups'] as const

/**
 * Where the data lives and what uses the space. Desktop: a button shows the folder (the core
 * asks the system). Browser mode: the folder is on the server, so the path is there to copy.
 * Clean-up removes stored files that nothing refers to any more.
 */
export function DataFolder({ refreshKey }: { refreshKey: number }) {
  const { t } = useTranslation()
  const [info, setInfo] = useState<DataFolderInfo>()
  const [error, setError] = useState<AppError>()
  const [note, setNote] = useState<string>()
  const load = useCallback(() => {
    void bridge()
      .call('data.folder.info', {})
      .then((r) => (r.ok ? setInfo(r.value) : setError(r.error)))
  }, [])
  useEffect(load, [load, refreshKey])

  const copy = async () => {
    if (!info) return
    try {
      await navigator.clipboard.writeText(info.path)
      setNote(t('dataPage.copied'))
    } catch {
      // No clipboard (an insecure origin): the path is selectable text anyway.
      setNote(t('dataPage.copyFailed'))
    }
  }
  const open = async () => {
    const r = await bridge().call('data.folder.open', {})
    if (!r.ok) setError(r.error)
  }
  const clean = async () => {
    setError(undefined)
    const r = await bridge().call('data.folder.clean', {})
    if (!r.ok) return setError(r.error)
    setNote(t('dataPage.cleaned', { count: r.value.removed, size: formatBytes(r.value.bytes) }))
    load()
  }

  if (!info) return error ? <DataError error={error} /> : null
  const button = 'rounded-md border border-zinc-300 px-3 py-1 text-sm dark:border-zinc-700 disabled:opacity-50'
  return (
    <div className="space-y-2" data-testid="data-folder">
      <h3 className="text-sm font-medium">{t('dataPage.folder')}</h3>
      <div className="flex flex-wrap items-center gap-2">
        <code className="rounded bg-zinc-100 px-2 py-1 text-xs break-all select-all dark:bg-zinc-800" data-testid="data-folder-path">
          {info.path}
        </code>
        {info.canOpen ? (
          <button className={button} onClick={() => void open()} data-testid="data-folder-open">
            {t('dataPage.openFolder')}
          </button>
        ) : (
          <button className={button} onClick={() => void copy()} data-testid="data-folder-copy">
            {t('dataPage.copyPath')}
          </button>
        )}
      </div>
      <table className="w-full max-w-sm text-sm" data-testid="data-usage">
        <tbody>
          {KINDS.map((k) => (
            <tr key={k} data-testid={`data-usage-${k}`}>
              <td className="py-0.5">{t(`dataPage.space.${k}`)}</td>
              <td className="py-0.5 text-right tabular-nums">{formatBytes(info.usage[k])}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <span data-testid="data-unused">{t('dataPage.unused', { count: info.unused.count, size: formatBytes(info.unused.bytes) })}</span>
        <button className={button} disabled={info.unused.count === 0} onClick={() => void clean()} data-testid="data-clean">
          {t('dataPage.clean')}
        </button>
      </div>
      {note && (
        <p className="text-sm" role="status" data-testid="data-folder-note">
          {note}
        </p>
      )}
      {error && <DataError error={error} onClose={() => setError(undefined)} />}
    </div>
  )
}
