import { useTranslation } from 'react-i18next'
import type { ImportReport } from '../../../shared/data/export-file'

const KINDS = ['agents', 'conversations', 'topics', 'messages', 'settings', 'providers'] as const

/**
 * The preview of an import before anything changes: per kind, what is new and what is already
 * here (kept exactly as it is: an import never overwrites), and what it would change besides
 * (provider addresses, applied only if the user says so).
 */
export function ImportSummary({ report }: { report: ImportReport }) {
  const { t } = useTranslation()
  const rows = KINDS.filter((k) => report.added[k] + report.skipped[k] > 0)
  const refused = report.refusedSettings ?? []
  const duplicates = report.duplicates ?? []
  return (
    <>
    <table className="w-full text-left text-sm" data-testid="import-summary">
      <thead className="text-xs text-zinc-500">
        <tr>
          <th className="py-1" />
          <th className="py-1 text-right">{t('dataPage.summaryNew')}</th>
          <th className="py-1 text-right">{t('dataPage.summaryExisting')}</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((k) => (
          <tr key={k} className="border-t border-zinc-200 dark:border-zinc-800" data-testid={`import-summary-${k}`}>
            <td className="py-1">{t(`dataPage.kinds.${k}`)}</td>
            <td className="py-1 text-right" data-testid="import-new">
              {report.added[k].toLocaleString()}
            </td>
            <td className="py-1 text-right" data-testid="import-existing">
              {report.skipped[k].toLocaleString()}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
    {refused.length > 0 && (
      <div className="text-sm" data-testid="import-refused-settings">
        <p className="font-medium">{t('dataPage.refusedSettings')}</p>
        <ul className="list-disc pl-5">
          {refused.slice(0, 50).map((r) => (
            <li key={r.key}>
              <code>{r.key}</code>: {r.reason}
            </li>
          ))}
        </ul>
      </div>
    )}
    {duplicates.length > 0 && (
      <p className="text-sm" data-testid="import-duplicates">
        {t('dataPage.duplicates', { count: duplicates.length, first: `${duplicates[0]!.kind} ${duplicates[0]!.id} (#${duplicates[0]!.index + 1})` })}
      </p>
    )}
    </>
  )
}
