import { useCallback, useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { SyncReplacedEdit } from '../../../shared/bridge/procedures/sync'
import { bridge } from '../../stores/app-store'
import { refresh } from '../../sync-refresh'
import { problemOf, SyncProblem, type Problem } from './sync-problem'
import { buttonClass } from './sync-setup-form'
import { relativeTime } from './sync-status-text'

/** A stored value as a person reads it: a setting's JSON text parsed, a switch as yes/no, long text cut. */
function shown(edit: SyncReplacedEdit, value: SyncReplacedEdit['replaced']): string {
  let out: unknown = value
  if (edit.table === 'settings' && typeof value === 'string') {
    try {
      out = JSON.parse(value) as unknown
    } catch {
      // Kept as stored.
    }
  }
  const text = out === null || out === '' ? '—' : typeof out === 'string' ? out : JSON.stringify(out)
  return text.length > 300 ? `${text.slice(0, 300)}…` : text
}

/**
 * This device's edits that later ones from other devices replaced (sync keeps the newest 100):
 * what each was, what replaced it and from where, and a button to bring it back — as an edit made
 * now, so it is sent and wins on every device. Read again after every merge (`mergedAt`).
 */
export function SyncReplacedEdits({ mergedAt, now }: { mergedAt: number | undefined; now: number }) {
  const { t } = useTranslation()
  const [edits, setEdits] = useState<SyncReplacedEdit[]>([])
  const [busy, setBusy] = useState<number>()
  const [problem, setProblem] = useState<Problem>()
  const load = useCallback(async () => {
    const r = await bridge().call('sync.replacedEdits', {})
    if (r.ok) setEdits(r.value)
  }, [])
  useEffect(() => void load(), [load, mergedAt])
  if (edits.length === 0) return null

  const bringBack = async (id: number) => {
    setBusy(id)
    setProblem(undefined)
    const r = await bridge().call('sync.bringBack', { id })
    setBusy(undefined)
    if (!r.ok) {
      setProblem(problemOf(r.error))
      await load()
      return
    }
    setEdits(r.value)
    void refresh()
  }
  const what = (edit: SyncReplacedEdit) => t(`sync.replaced.fields.${edit.table}.${edit.field}`, { defaultValue: t('sync.replaced.other', { table: edit.table, field: edit.field }) })
  const ago = (at: number) => {
    const phrase = relativeTime(at, now)
    return t(phrase.key, phrase.values ?? {})
  }

  return (
    <details className="text-sm" data-testid="sync-replaced">
      <summary className="cursor-pointer font-medium">{t('sync.replaced.summary', { count: edits.length })}</summary>
      {problem && <SyncProblem problem={problem} testId="sync-replaced-error" />}
      <ul className="mt-2 divide-y divide-zinc-100 rounded-md border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800">
        {edits.map((edit) => (
          <li key={edit.id} className="flex items-start gap-3 p-2" data-testid="sync-replaced-edit">
            <div className="min-w-0 flex-1 space-y-0.5">
              <p className="truncate">
                <span className="font-medium">{what(edit)}</span>
                {' · '}
                {edit.label === null ? <span className="text-zinc-500 italic">{t('sync.replaced.gone')}</span> : <span>{edit.table === 'settings' ? edit.label : `“${edit.label}”`}</span>}
                <span className="text-xs text-zinc-500"> · {ago(edit.at)}</span>
              </p>
              <p className="break-words text-zinc-700 dark:text-zinc-300" data-testid="sync-replaced-yours">
                <span className="text-xs text-zinc-500">{t('sync.replaced.yours')}: </span>
                {shown(edit, edit.replaced)}
              </p>
              <p className="break-words text-zinc-500" data-testid="sync-replaced-kept">
                <span className="text-xs">{t('sync.replaced.kept', { device: edit.keptBy })}: </span>
                {shown(edit, edit.kept)}
              </p>
            </div>
            {edit.label !== null && (
              <button type="button" className={buttonClass} disabled={busy !== undefined} aria-busy={busy === edit.id} onClick={() => void bringBack(edit.id)} data-testid="sync-bring-back">
                {t('sync.replaced.bringBack')}
              </button>
            )}
          </li>
        ))}
      </ul>
    </details>
  )
}
