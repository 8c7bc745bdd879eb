import { useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { DataTransferProgress } from '../../../shared/bridge/procedures/data'
import type { ImportReport } from '../../../shared/data/export-file'
import type { AppError } from '../../../shared/errors/app-error'
import { bridge, useApp } from '../../stores/app-store'
import { BackupsList } from './backups-list'

type Busy = { progress?: DataTransferProgress; cancel?: () => void }
type Source = { transferId: string } | { path: string }

const percent = (p?: DataTransferProgress) => (p && p.total > 0 ? Math.min(100, Math.round((p.done / p.total) * 100)) : 0)
const size = (bytes: number) => (bytes > 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : `${Math.max(1, Math.round(bytes / 1e3))} kB`)

/** Runs a data stream procedure as a promise, reporting progress; `cancel` aborts it in the core. */
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
 * Export and import, minimal but whole: progress and cancel for big files; in browser mode the
 * file travels over HTTP (`data/upload`, `data/download` under the app's path, with its cookies), never as one socket frame; an
 * import is previewed first and provider addresses in the file are applied only if the user
 * says so. (The full Data page comes later; this is the smallest UI that keeps those promises.)
 */
export function DataSection() {
  const { t } = useTranslation()
  const { info } = useApp()
  const browser = info?.mode === 'browser'
  const [busy, setBusy] = useState<Busy>()
  const [message, setMessage] = useState<string>()
  const [preview, setPreview] = useState<{ source: Source; report: ImportReport }>()
  const fileInput = useRef<HTMLInputElement>(null)

  const exportData = async () => {
    setMessage(undefined)
    // The desktop writes straight to the file the user picks in the shell's dialog.
    const target = browser ? undefined : await bridge().call('data.choosePath', { purpose: 'export' })
    if (target && !target.ok) return setMessage(target.error.message)
    if (target && !target.value) return
    setBusy({})
    const r = await run<{ transferId?: string; fileName: string; bytes: number; damaged: unknown[] }>('data.exportFile', target?.value ? { path: target.value.path } : {}, (progress) => setBusy((b) => ({ ...b, progress })), (cancel) => setBusy((b) => ({ ...b, cancel })))
    if (!r.ok) {
      setBusy(undefined)
      return setMessage(r.error.message)
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
    setPreview(undefined)
    setBusy({ progress: { phase: 'reading', done: 0, total: file.size } })
    const response = await fetch('data/upload', { method: 'POST', body: file })
    setBusy(undefined)
    const body = (await response.json()) as { transferId?: string; error?: string }
    if (!body.transferId) return setMessage(body.error ?? response.statusText)
    await previewImport({ transferId: body.transferId })
  }

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
    if (!r.ok) return setMessage(r.error.message)
    setPreview({ source, report: r.value })
  }

  const confirm = async (applyEndpoints: boolean) => {
    if (!preview) return
    const { source } = preview
    setPreview(undefined)
    const r = await importReport(source, { applyEndpoints })
    setMessage(r.ok ? t('dataTransfer.done', { conversations: r.value.added.conversations, messages: r.value.added.messages }) : r.error.message)
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
        <button disabled={Boolean(busy) || !info} onClick={() => (browser ? fileInput.current?.click() : void chooseOnDesktop())} className="rounded-md border border-zinc-300 px-3 py-1.5 text-sm dark:border-zinc-700" data-testid="data-import">
          {t('dataTransfer.import')}
        </button>
        <input
          ref={fileInput}
          type="file"
          accept="application/json,.json"
          className="hidden"
          data-testid="data-import-file"
          onChange={(e) => {
            const file = e.target.files?.[0]
            e.target.value = ''
            if (file) void choose(file)
          }}
        />
      </div>
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
      <BackupsList />
    </section>
  )
}

function saveBlob(blob: Blob, name: string) {
  const url = URL.createObjectURL(blob)
  const a = document.createElement('a')
  a.href = url
  a.download = name
  a.click()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}
