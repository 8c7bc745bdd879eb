import { useTranslation } from 'react-i18next'
import type { AppError } from '../../../shared/errors/app-error'
import { percent } from '../../../shared/local/format'
import { usePulls } from './pulls-store'

/** The model an Ollama error says is missing (OllamaBizError detail.missingModel), if any. */
export function missingOllamaModel(error: AppError | undefined): string | undefined {
  const detail = error?.detail as { missingModel?: unknown } | undefined
  return error?.errorType === 'OllamaBizError' && typeof detail?.missingModel === 'string' ? detail.missingModel : undefined
}

/**
 * For the chat's error card: when Ollama does not have the model, offer to pull it right
 * there and show the pull's progress (the pull itself belongs to the core, as on the page).
 */
export function PullMissingModel({ error }: { error: AppError | undefined }) {
  const { t } = useTranslation()
  const model = missingOllamaModel(error)
  const pull = usePulls((s) => (model ? s.order.map((id) => s.pulls[id]).find((p) => p?.model === model) : undefined))
  const start = usePulls((s) => s.start)
  if (!model) return null
  if (!pull || pull.phase === 'error' || pull.phase === 'cancelled') {
    return (
      <button data-testid="pull-missing-model" onClick={() => void start(model)} className="rounded-md bg-accent px-3 py-1.5 text-sm text-white">
        {t('local.pullMissing', { model })}
      </button>
    )
  }
  return (
    <span data-testid="pull-missing-progress" className="text-sm text-zinc-600 dark:text-zinc-300">
      {pull.phase === 'success' ? t('local.pulledMissing', { model }) : `${t(`local.phase.${pull.phase}`)} ${model} · ${percent(pull.fraction).toFixed(1)}%`}
    </span>
  )
}
