import { useEffect, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { formatBytes } from '../../../shared/local/format'
import type { AppError } from '../../../shared/errors/app-error'
import type { RecommendedList, RecommendedModel } from '../../../shared/models-library/types'
import { bridge } from '../../stores/app-store'
import { providerActions } from '../providers/providers-store'
import { useLibrary } from './library-store'
import { DownloadCard, FitBadge } from './model-library-section'

const button = 'rounded-md border border-zinc-300 px-3 py-1 text-sm hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800'
const primary = 'rounded-md bg-accent px-3 py-1 text-sm text-white disabled:opacity-50'

/**
 * The curated small models for a first offline chat, each with this machine's fit: one click
 * downloads it through the model library (progress, speed, time left, resumable), and once it
 * is verified `onChat` opens a chat on it with the built-in engine.
 */
export function RecommendedModels({ onChat, autoOpen = true }: { onChat(builtinId: string): void | Promise<void>; autoOpen?: boolean }) {
  const { t } = useTranslation()
  const [list, setList] = useState<RecommendedList>()
  const [error, setError] = useState<AppError>()
  const downloads = useLibrary((s) => s.downloads)
  const libraryError = useLibrary((s) => s.error)
  // The downloads started here: the one that succeeds opens the chat (one that was already running does not jump the screen).
  const started = useRef(new Map<string, RecommendedModel>())
  const [opened, setOpened] = useState<string>()

  useEffect(() => {
    let live = true
    void bridge()
      .call('models.recommended', {})
      .then((result) => {
        if (!live) return
        if (result.ok) setList(result.value)
        else setError(result.error)
      })
    // A download running from before (another window, a restart) shows its progress here too.
    void useLibrary.getState().sync()
    return () => {
      live = false
    }
  }, [])

  const open = async (m: RecommendedModel) => {
    setOpened(m.id)
    await onChat(m.builtinId)
    // Loading now (it would load on the first message anyway) also makes the engine list the new file, so the picker shows it.
    void bridge()
      .call('engine.load', { model: m.builtinId })
      .finally(() => void providerActions.refreshPicker())
  }

  useEffect(() => {
    for (const [downloadId, m] of started.current) {
      if (downloads[downloadId]?.phase !== 'success') continue
      started.current.delete(downloadId)
      if (autoOpen) void open(m)
      // Listed by the engine (and so by the picker) from now on.
      else void bridge().call('engine.status', {}).finally(() => void providerActions.refreshPicker())
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps -- reacts to the downloads only
  }, [downloads])

  const download = async (m: RecommendedModel) => {
    const id = await useLibrary.getState().download(m.ref, m.fit.verdict === 'doesNotFit')
    if (id) started.current.set(id, m)
  }

  if (error) return <p role="alert" className="text-xs text-red-700 dark:text-red-400">{error.message}</p>
  if (!list) return <p className="text-xs text-zinc-500">{t('recommended.loading')}</p>
  const smallest = list.models[0]
  const free = list.memory.freeRamBytes + (list.memory.freeVramBytes ?? 0)
  return (
    <div className="space-y-2 text-left" data-testid="recommended-models">
      {list.noneFits && smallest && (
        <p role="status" className="text-xs text-amber-700 dark:text-amber-400" data-testid="recommended-none-fits">
          {t('recommended.noneFits', { name: smallest.name, needs: formatBytes(smallest.fit.totalBytes), free: formatBytes(free) })}
        </p>
      )}
      <ul className="space-y-2" aria-label={t('recommended.title')}>
        {list.models.map((m) => {
          const snap = Object.values(downloads).find((d) => d.ref === m.ref && d.phase !== 'cancelled')
          const ready = Boolean(m.path) || snap?.phase === 'success'
          return (
            <li key={m.id} data-testid={`recommended-${m.id}`} className="rounded-lg border border-zinc-200 p-3 dark:border-zinc-800">
              <div className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
                <span className="text-sm font-medium">{m.name}</span>
                <span className="text-xs text-zinc-500">
                  {[m.quant, formatBytes(m.sizeBytes), m.license].join(' · ')}
                </span>
                <FitBadge fit={m.fit} />
                <span className="ml-auto">
                  {ready ? (
                    <button className={primary} disabled={opened === m.id} onClick={() => void open(m)}>
                      {t('recommended.chat')}
                    </button>
                  ) : !snap || snap.phase === 'error' ? (
                    <button className={m.fit.verdict === 'doesNotFit' ? button : primary} onClick={() => void download(m)} aria-label={t('recommended.downloadNamed', { name: m.name })}>
                      {m.fit.verdict === 'doesNotFit' ? t('library.downloadAnyway') : t('library.download')}
                    </button>
                  ) : null}
                </span>
              </div>
              <p className="mt-1 text-xs text-zinc-600 dark:text-zinc-400">{t(`recommended.goodAt.${m.id}`, { defaultValue: m.goodAt })}</p>
              <p className="font-mono text-[11px] text-zinc-400">{m.repo}</p>
              {snap && snap.phase !== 'success' && (
                <ul className="mt-2">
                  <DownloadCard d={snap} />
                </ul>
              )}
            </li>
          )
        })}
      </ul>
      {libraryError && (
        <p role="alert" className="text-xs text-red-700 dark:text-red-400">
          {libraryError.message}
        </p>
      )}
    </div>
  )
}
