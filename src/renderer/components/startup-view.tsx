import { useTranslation } from 'react-i18next'
import { INIT_PROGRESS_ORDER, type InitState } from '../../shared/app/init-state'

/** The core's start-up progress in the spec's order, or its error with a retry. */
export function StartupView({ state, onRetry }: { state: InitState; onRetry(): void }) {
  const { t } = useTranslation()
  // loadingWasm is in the spec's order but we have no wasm engine; do not count it as a step.
  const steps = INIT_PROGRESS_ORDER.filter((p) => p !== 'loadingWasm')
  const index = Math.max(0, steps.indexOf(state.phase as (typeof steps)[number]))
  const failed = state.phase === 'error'
  return (
    <div className="grid h-full place-items-center p-8" data-testid="startup" data-phase={state.phase}>
      <div className="w-full max-w-sm space-y-4 text-center" role="status" aria-live="polite">
        <div aria-hidden className="mx-auto grid size-12 place-items-center rounded-xl bg-accent text-xl font-bold text-white">S</div>
        <h1 className="text-lg font-semibold">{failed ? t('init.error') : t('init.title')}</h1>
        {failed ? (
          <>
            <p className="rounded-md bg-red-50 p-3 text-left text-sm text-red-800 dark:bg-red-950 dark:text-red-200" data-testid="startup-error">
              {state.detail}
            </p>
            <button onClick={onRetry} className="rounded-md bg-accent px-4 py-2 text-sm font-medium text-white hover:bg-accent-strong">
              {t('init.retry')}
            </button>
          </>
        ) : (
          <>
            <div className="h-1.5 overflow-hidden rounded-full bg-zinc-200 dark:bg-zinc-800">
              <div
                className="h-full rounded-full bg-accent transition-[width] duration-300"
                style={{ width: `${((index + 1) / steps.length) * 100}%` }}
                role="progressbar"
                aria-valuemin={0}
                aria-valuemax={steps.length}
                aria-valuenow={index + 1}
              />
            </div>
            <p className="text-sm text-zinc-600 dark:text-zinc-400">
              {t(`init.${state.phase}`)} · {t('init.step', { n: index + 1, total: steps.length })}
            </p>
            {state.detail && <p className="text-xs text-zinc-500">{state.detail}</p>}
          </>
        )}
      </div>
    </div>
  )
}
