import { useCallback, useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { KnowledgeBaseSummary } from '../../../shared/knowledge/types'
import { Page } from '../../components/page'
import { CreateBaseForm } from './create-base-form'
import { BaseDetail } from './base-detail'
import { EvalPanel } from './eval-panel'
import { call, errorText } from './use-call'

/** Knowledge: bases on the left; the selected base's files, search and evaluation on the right. */
export function KnowledgePage() {
  const { t } = useTranslation()
  const [bases, setBases] = useState<KnowledgeBaseSummary[]>([])
  const [selected, setSelected] = useState<string>()
  const [error, setError] = useState<string>()
  const reload = useCallback(async () => {
    try {
      const list = await call('knowledge.list', {})
      setBases(list)
      setSelected((s) => (s && list.some((b) => b.id === s) ? s : list[0]?.id))
    } catch (e) {
      setError(errorText(e))
    }
  }, [])
  useEffect(() => {
    void reload()
  }, [reload])
  const current = bases.find((b) => b.id === selected)
  return (
    <Page title={t('knowledge.title')} testId="page-knowledge">
      <div className="flex h-full min-h-0 gap-6">
        <aside className="flex w-72 shrink-0 flex-col gap-4 overflow-y-auto">
          <ul className="space-y-1" data-testid="kb-list">
            {bases.map((b) => (
              <li key={b.id}>
                <button
                  onClick={() => setSelected(b.id)}
                  aria-current={b.id === selected ? 'true' : undefined}
                  className={`w-full rounded-md px-3 py-2 text-left text-sm ${b.id === selected ? 'bg-zinc-200 font-medium dark:bg-zinc-800' : 'hover:bg-zinc-100 dark:hover:bg-zinc-800/60'}`}
                  data-testid="kb-item"
                >
                  <div>{b.name}</div>
                  <div className="text-xs text-zinc-500">
                    {b.counts.Success}/{b.files} · {b.modelId}
                  </div>
                </button>
              </li>
            ))}
          </ul>
          {bases.length === 0 && <p className="text-sm text-zinc-500">{t('knowledge.empty')}</p>}
          <CreateBaseForm
            onCreated={(id) => {
              setSelected(id)
              void reload()
            }}
          />
          {error && (
            <p role="alert" className="text-sm text-red-600">
              {error}
            </p>
          )}
        </aside>
        <div className="min-w-0 flex-1 space-y-8 overflow-y-auto">
          {current && <BaseDetail key={current.id} base={current} onChanged={() => void reload()} />}
          {current && <EvalPanel key={`eval-${current.id}`} base={current} />}
        </div>
      </div>
    </Page>
  )
}
