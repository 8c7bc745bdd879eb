import { Fragment, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { isAppError } from '../../../shared/errors/app-error'
import { formatBytes } from '../../../shared/local/format'
import type { ModelDetails } from '../../../shared/local/ollama-models'
import { DeleteModelDialog } from './delete-model-dialog'
import { useLocalModels } from './local-models-store'

const th = 'px-3 py-2 text-left text-xs font-medium text-zinc-500'
const td = 'px-3 py-2 text-sm'

function DetailsPanel({ details }: { details: ModelDetails }) {
  const { t, i18n } = useTranslation()
  return (
    <dl data-testid={`details-panel-${details.name}`} className="grid grid-cols-[10rem_1fr] gap-x-4 gap-y-1 text-xs">
      {details.contextLength !== undefined && (
        <>
          <dt className="text-zinc-500">{t('local.contextLength')}</dt>
          <dd>{t('local.tokens', { n: details.contextLength.toLocaleString(i18n.language) })}</dd>
        </>
      )}
      {details.architecture && (
        <>
          <dt className="text-zinc-500">{t('local.architecture')}</dt>
          <dd>{details.architecture}</dd>
        </>
      )}
      <dt className="text-zinc-500">{t('local.capabilities')}</dt>
      <dd className="flex flex-wrap gap-1">
        {details.capabilities.map((c) => (
          <span key={c} className="rounded bg-zinc-200 px-1.5 py-0.5 dark:bg-zinc-800">
            {c}
          </span>
        ))}
      </dd>
      {details.license && (
        <>
          <dt className="text-zinc-500">{t('local.license')}</dt>
          <dd className="line-clamp-3 whitespace-pre-wrap">{details.license}</dd>
        </>
      )}
    </dl>
  )
}

export function InstalledModelsTable() {
  const { t, i18n } = useTranslation()
  const { models, details, loadDetails } = useLocalModels()
  const [open, setOpen] = useState<string | undefined>()
  if (models.length === 0) return <p className="text-sm text-zinc-500">{t('local.noModels')}</p>
  const date = new Intl.DateTimeFormat(i18n.language, { dateStyle: 'medium' })
  return (
    <table className="w-full border-collapse" data-testid="installed-models">
      <thead className="border-b border-zinc-200 dark:border-zinc-800">
        <tr>
          <th className={th}>{t('local.col.name')}</th>
          <th className={`${th} text-right`}>{t('local.col.size')}</th>
          <th className={th}>{t('local.col.family')}</th>
          <th className={th}>{t('local.col.params')}</th>
          <th className={th}>{t('local.col.quant')}</th>
          <th className={th}>{t('local.col.modified')}</th>
          <th className={th} />
        </tr>
      </thead>
      <tbody>
        {models.map((m) => {
          const shown = details[m.name]
          return (
            <Fragment key={m.name}>
              <tr data-testid={`installed-row-${m.name}`} className="border-b border-zinc-100 dark:border-zinc-800/60">
                <td className={`${td} font-mono`}>{m.name}</td>
                <td className={`${td} text-right tabular-nums`}>{formatBytes(m.sizeBytes)}</td>
                <td className={td}>{m.family ?? '—'}</td>
                <td className={td}>{m.parameterSize ?? '—'}</td>
                <td className={td}>{m.quantization ?? '—'}</td>
                <td className={`${td} text-zinc-500`}>{m.modifiedAt ? date.format(new Date(m.modifiedAt)) : '—'}</td>
                <td className={`${td} space-x-3 text-right whitespace-nowrap`}>
                  <button
                    data-testid={`details-${m.name}`}
                    className="text-xs text-accent hover:underline"
                    onClick={() => {
                      const next = open === m.name ? undefined : m.name
                      setOpen(next)
                      if (next && !shown) void loadDetails(m.name)
                    }}
                  >
                    {open === m.name ? t('local.hide') : t('local.details')}
                  </button>
                  <DeleteModelDialog name={m.name} />
                </td>
              </tr>
              {open === m.name && shown && (
                <tr className="bg-zinc-50 dark:bg-zinc-900/60">
                  <td colSpan={7} className="px-3 py-3">
                    {isAppError(shown) ? <p className="text-xs text-red-600">{shown.message}</p> : <DetailsPanel details={shown} />}
                  </td>
                </tr>
              )}
            </Fragment>
          )
        })}
      </tbody>
    </table>
  )
}
