import { useTranslation } from 'react-i18next'
import type { AppError } from '../../../shared/errors/app-error'
import { describeAppError, shownErrorStatus, type Locale } from '../../../shared/errors/catalogue'
import type { Message } from '../../../shared/data/message'
import { missingOllamaModel, PullMissingModel } from '../local-models/pull-missing-model'

/** Which fix an error offers (errors as cards with the action that fixes them). */
export type ErrorAction = 'unlock' | 'ollama-help' | 'pull-model' | 'continue' | 'context' | 'retry' | 'none'

export function errorAction(error: AppError): ErrorAction {
  if (missingOllamaModel(error)) return 'pull-model'
  switch (error.errorType) {
    case 'InvalidProviderAPIKey':
    case 'NoOpenAIAPIKey':
    case 'InvalidGithubToken':
    case 'InvalidBedrockCredentials':
    case 'InvalidVertexCredentials':
    case 'InvalidAccessCode':
      return 'unlock'
    case 'OllamaServiceUnavailable':
      return 'ollama-help'
    case 'ModelNotFound':
      return error.provider === 'ollama' ? 'pull-model' : 'none'
    case 'StreamChunkError':
      return 'continue'
    case 'ExceededContextWindow':
      return 'context'
    default:
      return 'retry'
  }
}

export function ErrorCard({ error, message, onAction }: { error: AppError; message?: Message; onAction?(message: Message, fix?: 'trim'): void }) {
  const { t, i18n } = useTranslation()
  // Titled by what happened: a Google block reason, the status of an unknown type, else the type's text.
  const text = describeAppError(error, (i18n.language === 'zh-CN' ? 'zh-CN' : 'en') as Locale)
  const action = errorAction(error)
  return (
    <div role="alert" data-testid="error-card" data-error-type={error.errorType} className="mt-2 rounded-lg border border-red-200 bg-red-50 p-3 text-sm dark:border-red-900 dark:bg-red-950/50">
      <div className="font-medium text-red-800 dark:text-red-200">{text.title}</div>
      <div className="mt-0.5 text-red-700 dark:text-red-300">{text.fix}</div>
      {action === 'ollama-help' && <p className="mt-2 text-xs text-red-700 dark:text-red-300">{t('chat.ollamaHelp')}</p>}
      {error.message && error.message !== text.title && (
        <details className="mt-2 text-xs text-red-700/80 dark:text-red-300/80">
          <summary className="cursor-pointer">{t('chat.errorDetail', { type: error.errorType, status: shownErrorStatus(error) ?? '–' })}</summary>
          <pre className="mt-1 whitespace-pre-wrap">{error.message}</pre>
        </details>
      )}
      {action === 'pull-model' && missingOllamaModel(error) && (
        <div className="mt-2">
          <PullMissingModel error={error} />
        </div>
      )}
      {message && onAction && action === 'context' && (
        // The two fixes of a conversation too long for the model.
        <div className="mt-2 flex flex-wrap gap-2">
          <button onClick={() => onAction(message)} data-testid="error-action" className="rounded-md bg-red-600 px-3 py-1 text-xs font-medium text-white hover:bg-red-700">
            {t('controls.summarise')}
          </button>
          <button onClick={() => onAction(message, 'trim')} data-testid="error-action-trim" className="rounded-md border border-red-600 px-3 py-1 text-xs font-medium text-red-700 dark:text-red-300">
            {t('controls.trim')}
          </button>
        </div>
      )}
      {message && onAction && action !== 'none' && action !== 'pull-model' && action !== 'context' && (
        <button
          onClick={() => onAction(message)}
          data-testid="error-action"
          className="mt-2 rounded-md bg-red-600 px-3 py-1 text-xs font-medium text-white hover:bg-red-700"
        >
          {t(`chat.errorActions.${action}`)}
        </button>
      )}
    </div>
  )
}
