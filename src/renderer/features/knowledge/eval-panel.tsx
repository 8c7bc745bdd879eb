import { useCallback, useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { Dataset, EvalRecordResult, KnowledgeBaseSummary, KnowledgeEval } from '../../../shared/knowledge/types'
import { bridge } from '../../stores/app-store'
import { buttonClass, field } from './create-base-form'
import { call, errorText } from './use-call'

const pct = (x: number | null) => (x === null ? '—' : `${(x * 100).toFixed(1)}%`)

/** Datasets, eval runs with their figures, and a question-by-question comparison of two runs. */
export function EvalPanel({ base }: { base: KnowledgeBaseSummary }) {
  const { t } = useTranslation()
  const [datasets, setDatasets] = useState<Dataset[]>([])
  const [datasetId, setDatasetId] = useState<number>()
  const [runs, setRuns] = useState<KnowledgeEval[]>([])
  const [live, setLive] = useState<KnowledgeEval>()
  const [k, setK] = useState(5)
  const [runName, setRunName] = useState('')
  const [error, setError] = useState<string>()
  const [notice, setNotice] = useState<string>()
  const [compare, setCompare] = useState<string[]>([])
  const [details, setDetails] = useState<Record<string, EvalRecordResult[]>>({})

  const load = useCallback(async () => {
    const [d, r] = await Promise.all([call('knowledge.datasets', {}), call('knowledge.evals', { knowledgeBaseId: base.id })])
    setDatasets(d)
    setRuns(r)
    setDatasetId((id) => id ?? d[0]?.id)
  }, [base.id])
  useEffect(() => {
    void load().catch((e: unknown) => setError(errorText(e)))
  }, [load])

  const importFile = async (file: File) => {
    setError(undefined)
    try {
      const format = /\.csv$/i.test(file.name) ? 'csv' : 'jsonl'
      const r = await call('knowledge.importDataset', { name: file.name, format, text: await file.text() })
      setNotice(r.problems.length ? t('knowledge.problems', { count: r.problems.length, first: `line ${r.problems[0]!.line}: ${r.problems[0]!.message}` }) : t('knowledge.records', { count: r.dataset.records }))
      setDatasetId(r.dataset.id)
      await load()
    } catch (e) {
      setError(errorText(e))
    }
  }

  const start = () => {
    if (datasetId === undefined) return
    setError(undefined)
    bridge().stream(
      'knowledge.runEval',
      { knowledgeBaseId: base.id, datasetId, name: runName.trim() || `${base.chunkSize}/${base.chunkOverlap} · ${base.modelId}`, k },
      {
        onEvent: (e) => setLive(e.eval),
        onEnd: (r) => {
          if (!r.ok) setError(r.error.message)
          setLive(undefined)
          void load()
        }
      }
    )
  }

  useEffect(() => {
    for (const id of compare)
      if (!details[id]) void call('knowledge.evalRecords', { evalId: id }).then((records) => setDetails((d) => ({ ...d, [id]: records })))
  }, [compare, details])

  const [a, b] = compare
  return (
    <section className="space-y-3" data-testid="kb-evals">
      <h2 className="text-sm font-semibold">{t('knowledge.evals')}</h2>
      <div className="flex flex-wrap items-end gap-2">
        <label className="text-xs font-medium">
          {t('knowledge.dataset')}
          <select value={datasetId ?? ''} onChange={(e) => setDatasetId(Number(e.target.value))} className={field} data-testid="eval-dataset">
            {datasets.map((d) => (
              <option key={d.id} value={d.id}>
                {d.name} ({t('knowledge.records', { count: d.records })})
              </option>
            ))}
          </select>
        </label>
        <label className="text-xs font-medium">
          {t('knowledge.evalName')}
          <input value={runName} onChange={(e) => setRunName(e.target.value)} className={field} />
        </label>
        <label className="w-16 text-xs font-medium">
          {t('knowledge.k')}
          <input type="number" min={1} max={100} value={k} onChange={(e) => setK(Number(e.target.value))} className={field} />
        </label>
        <button onClick={start} disabled={datasetId === undefined || live !== undefined} className={buttonClass} data-testid="eval-run">
          {t('knowledge.runEval')}
        </button>
        <label className="cursor-pointer text-sm text-accent">
          {t('knowledge.importDataset')}
          <input type="file" accept=".csv,.jsonl,.json" className="sr-only" aria-describedby="eval-dataset-format" data-testid="eval-import" onChange={(e) => e.target.files?.[0] && void importFile(e.target.files[0])} />
        </label>
      </div>
      <p id="eval-dataset-format" className="text-xs text-zinc-500" data-testid="eval-dataset-format">
        {t('knowledge.datasetFormat')}
      </p>
      {live && (
        <div className="text-sm" data-testid="eval-live">
          {t(`knowledge.status.${live.status}`)} · {t('knowledge.progress', { done: live.done, total: live.total })}
          <div className="mt-1 h-1.5 w-64 overflow-hidden rounded bg-zinc-200 dark:bg-zinc-800">
            <div className="h-full bg-accent" style={{ width: `${live.total ? (live.done / live.total) * 100 : 0}%` }} />
          </div>
        </div>
      )}
      {notice && <p className="text-sm text-zinc-600">{notice}</p>}
      {error && (
        <p role="alert" className="text-sm text-red-600">
          {error}
        </p>
      )}
      {runs.length > 0 && (
        <table className="w-full text-sm" data-testid="eval-runs">
          <thead className="text-left text-xs text-zinc-500">
            <tr>
              <th>{t('knowledge.compare')}</th>
              <th>{t('knowledge.runs')}</th>
              <th>{t('knowledge.recall', { k: '' })}</th>
              <th>{t('knowledge.mrr')}</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {runs.map((r) => (
              <tr key={r.id} data-testid="eval-row">
                <td>
                  <input
                    type="checkbox"
                    checked={compare.includes(r.id)}
                    onChange={(e) => setCompare((c) => (e.target.checked ? [...c, r.id].slice(-2) : c.filter((x) => x !== r.id)))}
                    aria-label={t('knowledge.compare')}
                  />
                </td>
                <td>{r.name}</td>
                <td data-testid="eval-recall">
                  {pct(r.recall)} <span className="text-xs text-zinc-500">@{r.k}</span>
                </td>
                <td>{r.mrr === null ? '—' : r.mrr.toFixed(3)}</td>
                <td className="text-xs text-zinc-500">
                  {t(`knowledge.status.${r.status}`)} {r.error ?? ''} {r.correctness !== null ? `· ${pct(r.correctness)}` : ''}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {compare.length < 2 ? (
        runs.length > 1 && <p className="text-xs text-zinc-500">{t('knowledge.compareHint')}</p>
      ) : (
        <table className="w-full text-xs" data-testid="eval-compare">
          <thead className="text-left text-zinc-500">
            <tr>
              <th>{t('knowledge.question')}</th>
              <th>{runs.find((r) => r.id === a)?.name}</th>
              <th>{runs.find((r) => r.id === b)?.name}</th>
            </tr>
          </thead>
          <tbody>
            {(details[a!] ?? []).map((rec) => {
              const other = details[b!]?.find((x) => x.recordId === rec.recordId)
              return (
                <tr key={rec.recordId} className={other && other.hitRank !== rec.hitRank ? 'bg-amber-50 dark:bg-amber-950/40' : ''}>
                  <td className="py-1 pr-2">{rec.question}</td>
                  <td title={t('knowledge.rank')}>{rec.hitRank ?? t('knowledge.none')}</td>
                  <td title={t('knowledge.rank')}>{other?.hitRank ?? t('knowledge.none')}</td>
                </tr>
              )
            })}
          </tbody>
        </table>
      )}
    </section>
  )
}
