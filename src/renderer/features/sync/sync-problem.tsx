import { useTranslation } from 'react-i18next'
import { catalogueEntry, describeError, type Locale } from '../../../shared/errors/catalogue'

/** An error from the core (a call's AppError or the status's SyncError), as a code, its words and maybe a fix. */
export interface Problem {
  code: string
  message: string
  fix?: string
}

/**
 * What went wrong and what to do, in the user's language when the catalogue knows the code
 * (SyncWrongPassphrase, SyncStoreAuth…), with the core's own words below when they add something
 * (the store's answer, the object refused). The core's own fix, where it gives one, stands instead
 * of the catalogue's general one.
 */
export function SyncProblem({ problem, testId }: { problem: Problem; testId: string }) {
  const { i18n } = useTranslation()
  const known = catalogueEntry(problem.code) !== undefined && problem.code !== 'ValidationError'
  const text = known ? describeError(problem.code, (i18n.language === 'zh-CN' ? 'zh-CN' : 'en') as Locale) : undefined
  const title = text?.title ?? problem.message
  // The core's own fix is the more precise one (a folder store's is about drives and shares, not
  // addresses and networks); it is written in English, so another language keeps the catalogue's.
  const fix = (i18n.language !== 'zh-CN' && problem.fix) || text?.fix || problem.fix
  // The core's own words (the store's answer, a more precise fix), when they add something.
  const details = text ? [problem.message, problem.fix].filter((line): line is string => !!line && line !== title && line !== fix) : []
  return (
    <div role="alert" data-testid={testId} data-error-type={problem.code} className="rounded-md border border-red-200 bg-red-50 p-3 text-sm dark:border-red-900 dark:bg-red-950/50">
      <div className="font-medium text-red-800 dark:text-red-200">{title}</div>
      {fix && <div className="text-red-700 dark:text-red-300">{fix}</div>}
      {details.map((line) => (
        <p key={line} className="mt-1 text-xs break-words text-red-700/80 dark:text-red-300/80">
          {line}
        </p>
      ))}
    </div>
  )
}

/** A call's error as a Problem. */
export const problemOf = (error: { errorType: string; message: string }): Problem => ({ code: error.errorType, message: error.message })
