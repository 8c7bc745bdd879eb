import { useCallback, useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { KnowledgeBaseSummary, KnowledgeFile, SearchHit } from '../../../shared/knowledge/types'
import { buttonClass, field } from './create-base-form'
import { FileRow } from './file-row'
import { BaseExtras } from './base-extras'
import { call, errorText } from './use-call'
import { bridge, useApp } from '../../stores/app-store'
import { uploadFile } from '../../bridge/upload'

const globs = (text: string) =>
  text
    .split(',')
    .map((g) => g.trim())
    .filter(Boolean)

/** A picked file to the core, by the one upload path (a transfer file, then `knowledge.upload`). */
async function uploadToBase(kbId: string, file: File, mode: string | undefined): Promise<void> {
  const transferId = await uploadFile(bridge(), file, mode)
  await call('knowledge.upload', { kbId, name: file.name, transferId })
}

/** One base: rename/delete, add files or folders, the files with their states, and a search to try it. */
export function BaseDetail({ base, onChanged }: { base: KnowledgeBaseSummary; onChanged(): void }) {
  const { t } = useTranslation()
  const mode = useApp((s) => s.info?.mode)
  const [files, setFiles] = useState<KnowledgeFile[]>([])
  const [path, setPath] = useState('')
  const [include, setInclude] = useState('')
  const [exclude, setExclude] = useState('')
  const [notice, setNotice] = useState<string>()
  const [error, setError] = useState<string>()
  const [query, setQuery] = useState('')
  const [hits, setHits] = useState<SearchHit[]>()
  const [name, setName] = useState(base.name)

  const load = useCallback(async () => {
    try {
      setFiles(await call('knowledge.files', { kbId: base.id }))
    } catch (e) {
      setError(errorText(e))
    }
  }, [base.id])
  useEffect(() => {
    void load()
  }, [load])
  // While anything is queued or running, poll: the states live in the core's database.
  const busy = files.some((f) => f.status === 'Pending' || f.status === 'Processing')
  useEffect(() => {
    if (!busy) return
    const timer = setInterval(() => void load(), 600)
    return () => {
      clearInterval(timer)
      onChanged()
    }
  }, [busy, load, onChanged])

  const run = async (fn: () => Promise<void>) => {
    setError(undefined)
    try {
      await fn()
    } catch (e) {
      setError(errorText(e))
    }
    void load()
  }

  return (
    <section className="space-y-4" data-testid="kb-detail">
      <div className="flex items-center gap-2">
        <input value={name} onChange={(e) => setName(e.target.value)} className={`${field} max-w-sm text-base font-semibold`} aria-label={t('knowledge.name')} data-testid="kb-rename-input" />
        <button
          className="rounded-md px-2 py-1 text-sm hover:bg-zinc-100 dark:hover:bg-zinc-800"
          disabled={!name.trim() || name === base.name}
          onClick={() => void run(async () => void (await call('knowledge.update', { id: base.id, name: name.trim() }), onChanged()))}
          data-testid="kb-rename"
        >
          {t('knowledge.rename')}
        </button>
        <button
          className="rounded-md px-2 py-1 text-sm text-red-600 hover:bg-red-50 dark:hover:bg-red-950"
          onClick={() => {
            if (window.confirm(t('knowledge.deleteConfirm', { name: base.name }))) void run(async () => void (await call('knowledge.delete', { id: base.id }), onChanged()))
          }}
          data-testid="kb-delete"
        >
          {t('knowledge.delete')}
        </button>
        <span className="ml-auto text-xs text-zinc-500">
          {base.providerId}/{base.modelId}
          {base.dimensions ? ` · ${base.dimensions}d` : ''} · {base.chunkSize}/{base.chunkOverlap}
        </span>
      </div>

      {/* A path names a file on the machine the core runs on: the desktop's own. A browser uploads instead. */}
      {mode !== 'browser' && (
      <form
        className="grid grid-cols-[1fr_auto] gap-2"
        onSubmit={(e) => {
          e.preventDefault()
          void run(async () => {
            const r = await call('knowledge.addPaths', { kbId: base.id, paths: [path.trim()], include: globs(include), exclude: globs(exclude) })
            setNotice(t('knowledge.added', { count: r.added, skipped: r.skipped }))
            setPath('')
          })
        }}
      >
        <input value={path} onChange={(e) => setPath(e.target.value)} placeholder={t('knowledge.pathPlaceholder')} aria-label={t('knowledge.addFolder')} className={field} data-testid="kb-path" />
        <button type="submit" disabled={!path.trim()} className={buttonClass} data-testid="kb-add">
          {t('knowledge.add')}
        </button>
        <input value={include} onChange={(e) => setInclude(e.target.value)} placeholder={t('knowledge.include')} aria-label={t('knowledge.include')} className={field} />
        <span />
        <input value={exclude} onChange={(e) => setExclude(e.target.value)} placeholder={t('knowledge.exclude')} aria-label={t('knowledge.exclude')} className={field} data-testid="kb-exclude" />
      </form>
      )}
      <BaseExtras key={base.id} base={base} onChanged={() => void load().then(onChanged)} />
      <label className="inline-block cursor-pointer text-sm text-accent">
        {t('knowledge.upload')}
        <input
          type="file"
          multiple
          className="sr-only"
          data-testid="kb-upload"
          onChange={(e) => {
            const picked = [...(e.target.files ?? [])]
            e.target.value = ''
            void run(async () => {
              for (const file of picked) await uploadToBase(base.id, file, mode)
            })
          }}
        />
      </label>
      {notice && <p className="text-sm text-zinc-600 dark:text-zinc-400" data-testid="kb-notice">{notice}</p>}
      {error && (
        <p role="alert" className="text-sm text-red-600">
          {error}
        </p>
      )}

      <div>
        <h2 className="mb-2 text-sm font-semibold">{t('knowledge.files')}</h2>
        {files.length === 0 ? (
          <p className="text-sm text-zinc-500">{t('knowledge.noFiles')}</p>
        ) : (
          <table className="w-full text-sm" data-testid="kb-files">
            <tbody>
              {files.map((f) => (
                <FileRow key={f.id} file={f} onRetry={() => void run(async () => void (await call('knowledge.retryFile', { fileId: f.id })))} onRemove={() => void run(async () => void (await call('knowledge.removeFile', { fileId: f.id })))} />
              ))}
            </tbody>
          </table>
        )}
      </div>

      <form
        className="flex gap-2"
        onSubmit={(e) => {
          e.preventDefault()
          void run(async () => setHits(await call('knowledge.search', { kbIds: [base.id], query, topK: 5 })))
        }}
      >
        <input value={query} onChange={(e) => setQuery(e.target.value)} placeholder={t('knowledge.search')} aria-label={t('knowledge.search')} className={field} data-testid="kb-search" />
        <button type="submit" disabled={!query.trim()} className={buttonClass}>
          {t('knowledge.searchButton')}
        </button>
      </form>
      {hits && (
        <ol className="space-y-2 text-sm" data-testid="kb-hits">
          {hits.length === 0 && <li className="text-zinc-500">{t('knowledge.noHits')}</li>}
          {hits.map((h, i) => (
            <li key={h.chunkId} className="rounded-md border border-zinc-200 p-2 dark:border-zinc-800">
              <div className="text-xs text-zinc-500">
                [{i + 1}] {h.fileName}
                {h.heading ? ` › ${h.heading}` : ''}
                {h.page ? ` · p. ${h.page}` : ''} · {h.charStart}–{h.charEnd}
              </div>
              <div className="line-clamp-3 whitespace-pre-wrap">{h.text}</div>
            </li>
          ))}
        </ol>
      )}
    </section>
  )
}
