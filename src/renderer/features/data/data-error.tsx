import { useTranslation } from 'react-i18next'
import type { AppError } from '../../../shared/errors/app-error'
import { describeAppError, type Locale } from '../../../shared/errors/catalogue'

/**
 * An error on the Data page as the spec's catalogue says it (ImportFailed, FileIncompatible,
 * DiskFull…): what happened, what to do, and the core's detail (which row, which field).
 */
export function DataError({ error, onClose }: { error: AppError; onClose?(): void }) {
  const { t, i18n } = useTranslation()
  const text = describeAppError(error, (i18n.language === 'zh-CN' ? 'zh-CN' : 'en') as Locale)
  return (
    <div role="alert" data-testid="data-error" data-error-type={error.errorType} className="rounded-md border border-red-200 bg-red-50 p-3 text-sm dark:border-red-900 dark:bg-red-950/50">
      <div className="font-medium text-red-800 dark:text-red-200">{text.title}</div>
      <div className="text-red-700 dark:text-red-300">{text.fix}</div>
      {error.message && error.message !== text.title && <p className="mt-1 text-xs text-red-700/80 dark:text-red-300/80" data-testid="data-error-detail">{error.message}</p>}
      {onClose && (
        <button onClick={onClose} className="mt-1 text-xs underline">
          {t('dataPage.dismiss')}
        </button>
      )}
    </div>
  )
}
