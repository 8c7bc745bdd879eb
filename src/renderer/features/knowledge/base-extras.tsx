import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { KnowledgeBaseSummary } from '../../../shared/knowledge/types'
import { buttonClass, field } from './create-base-form'
import { call, errorText } from './use-call'

/** Providers whose `/rerank` endpoint the core knows; any other with a base address works too. */
const RERANK_PROVIDERS = ['jina', 'cohere', 'siliconcloud', 'xinference', 'vllm']

/**
 * A base's web pages and reranking: add a page by its address (read with the
 * read-a-web-page tool, under the tools' address policy), and pick a rerank model that
 * re-orders the fused results.
 */
export function BaseExtras({ base, onChanged }: { base: KnowledgeBaseSummary; onChanged(): void }) {
  const { t } = useTranslation()
  const [url, setUrl] = useState('')
  const [providerId, setProviderId] = useState(base.rerank?.providerId ?? '')
  const [modelId, setModelId] = useState(base.rerank?.modelId ?? '')
  const [error, setError] = useState<string>()
  const [busy, setBusy] = useState(false)
  const run = async (fn: () => Promise<unknown>) => {
    setError(undefined)
    setBusy(true)
    try {
      await fn()
      onChanged()
    } catch (e) {
      setError(errorText(e))
    } finally {
      setBusy(false)
    }
  }
  const saveRerank = (provider: string, model: string) =>
    run(() => call('knowledge.setRerank', { kbId: base.id, rerank: provider && model.trim() ? { providerId: provider, modelId: model.trim() } : null }))
  return (
    <div className="space-y-2" data-testid="kb-extras">
      <form
        className="flex gap-2"
        onSubmit={(e) => {
          e.preventDefault()
          void run(async () => {
            await call('knowledge.addUrl', { kbId: base.id, url: url.trim() })
            setUrl('')
          })
        }}
      >
        <input value={url} onChange={(e) => setUrl(e.target.value)} placeholder={t('toolsKb3.urlPlaceholder')} aria-label={t('toolsKb3.addUrl')} className={field} data-testid="kb-url" />
        <button type="submit" disabled={busy || !/^https?:\/\/\S+$/.test(url.trim())} className={`${buttonClass} whitespace-nowrap`} data-testid="kb-add-url">
          {t('toolsKb3.addUrl')}
        </button>
      </form>
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <span className="font-medium">{t('toolsKb3.rerank')}</span>
        <select
          value={providerId}
          onChange={(e) => {
            setProviderId(e.target.value)
            if (!e.target.value) void saveRerank('', '')
          }}
          aria-label={t('toolsKb3.rerankProvider')}
          className={`${field} w-auto`}
          data-testid="kb-rerank-provider"
        >
          <option value="">{t('toolsKb3.rerankNone')}</option>
          {RERANK_PROVIDERS.map((p) => (
            <option key={p} value={p}>
              {p}
            </option>
          ))}
        </select>
        {providerId && (
          <>
            <input value={modelId} onChange={(e) => setModelId(e.target.value)} placeholder="jina-reranker-v2-base-multilingual" aria-label={t('toolsKb3.rerankModel')} className={`${field} w-72`} data-testid="kb-rerank-model" />
            <button type="button" className={buttonClass} disabled={busy || !modelId.trim()} onClick={() => void saveRerank(providerId, modelId)} data-testid="kb-rerank-save">
              {t('knowledge.add')}
            </button>
          </>
        )}
        {base.rerank && <span className="text-xs text-zinc-500" data-testid="kb-rerank-current">{`${base.rerank.providerId}/${base.rerank.modelId}`}</span>}
      </div>
      {error && (
        <p role="alert" className="text-sm text-red-600">
          {error}
        </p>
      )}
    </div>
  )
}
