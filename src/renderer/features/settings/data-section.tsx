import { useState } from 'react'
import { leaveReloadNote, takeReloadNote } from './reload-note'
import { useTranslation } from 'react-i18next'
import type { DataTransferProgress } from '../../../shared/bridge/procedures/data'
import type { ImportReport } from '../../../shared/data/export-file'
import type { AppError } from '../../../shared/errors/app-error'
import { useFilePick } from '../../components/file-pick'
import { bridge, useApp } from '../../stores/app-store'
import { uploadFile } from '../../bridge/upload'
import { BackupsList } from './backups-list'
import { DataError } from '../data/data-error'
import { DataFolder } from '../data/data-folder'
import { ExportChooser, type Selection } from '../data/export-chooser'
import { formatBytes, saveBlob } from '../data/format'
import { ImportSummary } from '../data/import-summary'

type Busy = { progress?: DataTransferProgress; cancel?: () => void }
type Source = { transferId: string } | { path: string }

const percent = (p?: DataTransferProgress) => (p && p.total > 0 ? Math.min(100, Math.round((p.done / p.total) * 100)) : 0)
const size = formatBytes

/** Runs a data stream procedure as a promise, reporting progress; `cancel` aborts it in the core. */
/** The import's result, kept across the reload that follows it. */
const IMPORTED_NOTE_KEY = 'switchboard.importedNote'

function run<R>(proc: 'data.importFile' | 'data.exportFile', input: object, onProgress: (p: DataTransferProgress) => void, onCancel: (cancel: () => void) => void) {
  return new Promise<{ ok: true; value: R } | { ok: false; error: AppError }>((resolve) => {
    const start = bridge().stream as unknown as (
      p: string,
      i: object,
      h: { onEvent(e: DataTransferProgress): void; onEnd(r: { ok: true; value: R } | { ok: false; error: AppError }): void; onRefused(e: AppError): void }
    ) => { cancel(): void }
    const handle = start(proc, input, { onEvent: onProgress, onEnd: resolve, onRefused: (error) => resolve({ ok: false, error }) })
    onCancel(() => handle.cancel())
  })
}

/**
 * Settings → Data. Export everything or a selection, import with progress; in browser
 * mode the file travels over HTTP (`data/upload`, `data/download` under the app's path, with its
 * cookies), never as one socket frame. An import is previewed first (what is new, what is already
 * here, which provider addresses it would set) and errors read as the catalogue says them.
 * Below: backups (back up now, restore) and the data folder (path, space, clean-up).
 */
export function DataSection() {
  const { t } = useTranslation()
  const { info } = useApp()
  const browser = info?.mode === 'browser'
  const [busy, setBusy] = useState<Busy>()
  // Said after the reload that follows an import (see `confirm`).
  const [message, setMessage] = useState<string | undefined>(() => takeReloadNote(IMPORTED_NOTE_KEY))
  const [error, setError] = useState<AppError>()
  const [choosing, setChoosing] = useState(false)
  /** Bumped after an import or a backup, so the backups list and the space figures read again. */
  const [refreshKey, setRefreshKey] = useState(0)
  const fail = (e: AppError) => {
    setMessage(undefined)
    setError(e)
  }
  const [preview, setPreview] = useState<{ source: Source; report: ImportReport }>()

  const exportSelected = async (selection: Selection) => {
    setMessage(undefined)
    setError(undefined)
    setBusy({})
    const r = await bridge().call('data.exportSelected', selection)
    if (!r.ok) {
      setBusy(undefined)
      return fail(r.error)
    }
    let blob: Blob
    if (r.value.transferId) {
      const response = await fetch(`data/download/${r.value.transferId}?name=${encodeURIComponent(r.value.fileName)}`)
      if (!response.ok) {
        setBusy(undefined)
        return setMessage(((await response.json()) as { error: string }).error)
      }
      blob = await response.blob()
    } else blob = new Blob([r.value.json ?? ''], { type: 'application/json' })
    setBusy(undefined)
    setChoosing(false)
    saveBlob(blob, r.value.fileName)
    setMessage([t('dataTransfer.exported', { size: size(r.value.bytes) }), r.value.damaged.length ? t('dataTransfer.exportedDamaged', { count: r.value.damaged.length }) : ''].join(' '))
  }

  const exportData = async () => {
    setMessage(undefined)
    setError(undefined)
    // The desktop writes straight to the file the user picks in the shell's dialog.
    const target = browser ? undefined : await bridge().call('data.choosePath', { purpose: 'export' })
    if (target && !target.ok) return setMessage(target.error.message)
    if (target && !target.value) return
    setBusy({})
    const r = await run<{ transferId?: string; fileName: string; bytes: number; damaged: unknown[] }>('data.exportFile', target?.value ? { path: target.value.path } : {}, (progress) => setBusy((b) => ({ ...b, progress })), (cancel) => setBusy((b) => ({ ...b, cancel })))
    if (!r.ok) {
      setBusy(undefined)
      return fail(r.error)
    }
    if (!r.value.transferId) {
      setBusy(undefined)
      return setMessage([t('dataTransfer.exported', { size: size(r.value.bytes) }), r.value.damaged.length ? t('dataTransfer.exportedDamaged', { count: r.value.damaged.length }) : ''].join(' '))
    }
    const response = await fetch(`data/download/${r.value.transferId}?name=${encodeURIComponent(r.value.fileName)}`)
    setBusy(undefined)
    if (!response.ok) return setMessage(((await response.json()) as { error: string }).error)
    saveBlob(await response.blob(), r.value.fileName)
    setMessage([t('dataTransfer.exported', { size: size(r.value.bytes) }), r.value.damaged.length ? t('dataTransfer.exportedDamaged', { count: r.value.damaged.length }) : ''].join(' '))
  }

  const importReport = async (source: Source, options: { dryRun?: boolean; applyEndpoints?: boolean }) => {
    setBusy({})
    const r = await run<ImportReport>('data.importFile', { ...source, ...options }, (progress) => setBusy((b) => ({ ...b, progress })), (cancel) => setBusy((b) => ({ ...b, cancel })))
    setBusy(undefined)
    return r
  }

  /** Browser mode: the chosen file is uploaded over HTTP. */
  const choose = async (file: File) => {
    setMessage(undefined)
    setError(undefined)
    setPreview(undefined)
    setBusy({ progress: { phase: 'reading', done: 0, total: file.size } })
    let transferId: string
    try {
      transferId = await uploadFile(bridge(), file, 'browser')
    } catch (e) {
      return setMessage(e instanceof Error ? e.message : String(e))
    } finally {
      setBusy(undefined)
    }
    await previewImport({ transferId })
  }

  const picker = useFilePick({ accept: 'application/json,.json', testId: 'data-import-file', onFile: (file) => void choose(file) })

  /** The desktop: the shell's dialog picks the file; the core reads it from disk. */
  const chooseOnDesktop = async () => {
    setMessage(undefined)
    setPreview(undefined)
    const picked = await bridge().call('data.choosePath', { purpose: 'import' })
    if (!picked.ok) return setMessage(picked.error.message)
    if (picked.value) await previewImport({ path: picked.value.path })
  }

  const previewImport = async (source: Source) => {
    const r = await importReport(source, { dryRun: true })
    if (!r.ok) return fail(r.error)
    setPreview({ source, report: r.value })
  }

  const confirm = async (applyEndpoints: boolean) => {
    if (!preview) return
    const { source } = preview
    setPreview(undefined)
    const r = await importReport(source, { applyEndpoints })
    if (!r.ok) return fail(r.error)
    const done = t('dataTransfer.done', { conversations: r.value.added.conversations, messages: r.value.added.messages })
    const added = Object.values(r.value.added).reduce((a, b) => a + b, 0)
    if (added === 0) {
      setMessage(done)
      return setRefreshKey((k) => k + 1)
    }
    // Every screen holds data read before the import (the chat's agents and conversations, the
    // providers): start them all again from the data as it is now, as after a restore.
    leaveReloadNote(IMPORTED_NOTE_KEY, done)
    location.reload()
  }

  const phaseText = busy?.progress ? t(`dataTransfer.${busy.progress.phase === 'exporting' ? 'exporting' : busy.progress.phase === 'importing' ? 'importing' : busy.progress.phase === 'undoing' ? 'undoing' : 'checking'}`, { percent: percent(busy.progress) }) : '…'
  const skipped = preview ? Object.values(preview.report.skipped).reduce((a, b) => a + b, 0) : 0
  return (
    <section className="space-y-3" data-testid="data-section">
      <h2 className="text-sm font-semibold tracking-wide text-zinc-500 uppercase">{t('dataTransfer.title')}</h2>
      <div className="flex gap-2">
        <button disabled={Boolean(busy) || !info} onClick={() => void exportData()} className="rounded-md border border-zinc-300 px-3 py-1.5 text-sm dark:border-zinc-700" data-testid="data-export">
          {t('dataTransfer.export')}
        </button>
        <button disabled={Boolean(busy) || !info} onClick={() => setChoosing((c) => !c)} className="rounded-md border border-zinc-300 px-3 py-1.5 text-sm dark:border-zinc-700" data-testid="data-export-selected">
          {t('dataPage.exportSelected')}
        </button>
                <button disabled={Boolean(busy) || !info} onClick={() => (browser ? picker.open() : void chooseOnDesktop())} className="rounded-md border border-zinc-300 px-3 py-1.5 text-sm dark:border-zinc-700" data-testid="data-import">
          {t('dataTransfer.import')}
        </button>
        {picker.input}
      </div>
      {choosing && <ExportChooser busy={Boolean(busy)} onExport={(selection) => void exportSelected(selection)} onClose={() => setChoosing(false)} />}
      {busy && (
        <div className="flex items-center gap-3 text-sm" data-testid="data-progress">
          <progress max={100} value={percent(busy.progress)} className="w-48" />
          <span>{phaseText}</span>
          {busy.cancel && (
            <button onClick={busy.cancel} className="text-xs underline">
              {t('dataTransfer.cancel')}
            </button>
          )}
        </div>
      )}
      {preview && (
        <div className="space-y-2 rounded-md border border-zinc-300 p-3 text-sm dark:border-zinc-700" data-testid="data-import-preview">
          <p>{t('dataTransfer.summary', { conversations: preview.report.added.conversations, messages: preview.report.added.messages, skipped })}</p>
          <ImportSummary report={preview.report} />
          {preview.report.endpoints.length > 0 && (
            <>
              <p className="font-medium">{t('dataTransfer.endpointsTitle')}</p>
              <ul className="list-disc pl-5" data-testid="data-import-endpoints">
                {preview.report.endpoints.map((e) => (
                  <li key={e.providerId}>
                    {e.providerId}: {[e.baseUrl, e.proxyUrl].filter(Boolean).join(', ')}
                  </li>
                ))}
              </ul>
            </>
          )}
          <div className="flex gap-2">
            {preview.report.endpoints.length > 0 ? (
              <>
                <button onClick={() => void confirm(false)} className="bg-accent rounded-md px-3 py-1.5 text-white" data-testid="data-import-confirm">
                  {t('dataTransfer.confirmWithoutEndpoints')}
                </button>
                <button onClick={() => void confirm(true)} className="rounded-md border border-zinc-300 px-3 py-1.5 dark:border-zinc-700" data-testid="data-import-confirm-endpoints">
                  {t('dataTransfer.confirmWithEndpoints')}
                </button>
              </>
            ) : (
              <button onClick={() => void confirm(false)} className="bg-accent rounded-md px-3 py-1.5 text-white" data-testid="data-import-confirm">
                {t('dataTransfer.confirm')}
              </button>
            )}
            <button onClick={() => setPreview(undefined)} className="text-xs underline">
              {t('dataTransfer.cancel')}
            </button>
          </div>
        </div>
      )}
      {message && (
        <p className="text-sm" role="status" data-testid="data-message">
          {message}
        </p>
      )}
      {error && <DataError error={error} onClose={() => setError(undefined)} />}
      <BackupsList refreshKey={refreshKey} onChange={() => setRefreshKey((k) => k + 1)} />
      <DataFolder refreshKey={refreshKey} />
    </section>
  )
}
