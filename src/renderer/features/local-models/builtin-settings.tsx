import { useEffect, useId, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { ENGINE_LIMITS, type BuiltinPlanInfo, type BuiltinStatus } from '../../../shared/engine/builtin-status'
import type { AppError } from '../../../shared/errors/app-error'
import { formatBytes } from '../../../shared/local/format'
import { bridge } from '../../stores/app-store'

const button = 'rounded border border-zinc-300 px-2 py-0.5 text-xs hover:bg-zinc-100 disabled:opacity-50 dark:border-zinc-700 dark:hover:bg-zinc-800'
const input = 'w-24 rounded border border-zinc-300 bg-transparent px-2 py-1 text-sm aria-[invalid=true]:border-red-500 dark:border-zinc-700'
const GB = 1e9
const MAX_KEEP_ALIVE_MIN = ENGINE_LIMITS.maxKeepAliveMs / 60_000

/** A whole number in [min, max] from a field, or an error key; empty is `undefined` (the default). */
function wholeNumber(text: string, min: number, max: number): { value?: number; error?: boolean } {
  if (!text.trim()) return {}
  const n = Number(text)
  return Number.isInteger(n) && n >= min && n <= max ? { value: n } : { error: true }
}

/**
 * The engine's settings on the Local models page: keep-alive, memory budget and threads. Empty
 * fields mean the default (shown as the placeholder); a value out of range says the range and
 * cannot be saved.
 */
export function BuiltinSettingsForm({ status, onSaved }: { status: BuiltinStatus; onSaved: (next: BuiltinStatus) => void }) {
  const { t } = useTranslation()
  const id = useId()
  const { settings, defaults, totalBytes } = status
  const [keep, setKeep] = useState(settings.keepAliveMs < 0 ? '' : String(settings.keepAliveMs / 60_000))
  const [forever, setForever] = useState(settings.keepAliveMs < 0)
  const [budget, setBudget] = useState(settings.memoryBudgetBytes ? String(Math.round((settings.memoryBudgetBytes / GB) * 10) / 10) : '')
  const [threads, setThreads] = useState(settings.threads ? String(settings.threads) : '')
  const [error, setError] = useState<AppError>()
  const [saved, setSaved] = useState(false)

  const keepMin = Number(keep)
  const keepInvalid = !forever && (!keep.trim() || !Number.isFinite(keepMin) || keepMin < 0 || keepMin > MAX_KEEP_ALIVE_MIN)
  const minBudgetGb = Math.ceil((ENGINE_LIMITS.minBudgetBytes / GB) * 10) / 10
  const budgetGb = Number(budget)
  const budgetInvalid = budget.trim() !== '' && (!Number.isFinite(budgetGb) || budgetGb * GB < ENGINE_LIMITS.minBudgetBytes || budgetGb * GB > totalBytes)
  const threadsField = wholeNumber(threads, 1, defaults.cpuCount)
  const invalid = keepInvalid || budgetInvalid || Boolean(threadsField.error)

  const save = async () => {
    if (invalid) return
    setError(undefined)
    const r = await bridge().call('engine.setSettings', {
      keepAliveMs: forever ? -1 : Math.round(keepMin * 60_000),
      memoryBudgetBytes: budget.trim() ? Math.round(budgetGb * GB) : null,
      threads: threadsField.value ?? null
    })
    if (r.ok) {
      onSaved(r.value)
      setSaved(true)
    } else setError(r.error)
  }
  const edited = () => setSaved(false)

  return (
    <form
      className="space-y-2 rounded border border-zinc-200 p-3 dark:border-zinc-800"
      data-testid="builtin-settings"
      onSubmit={(e) => {
        e.preventDefault()
        void save()
      }}
    >
      <h3 className="text-sm font-medium">{t('local.builtin.settings.title')}</h3>
      <div className="flex flex-wrap items-start gap-6">
        <div className="space-y-1">
          <label className="block text-xs text-zinc-600 dark:text-zinc-400" htmlFor={`${id}-keep`}>
            {t('local.builtin.settings.keepAlive')}
          </label>
          <div className="flex items-center gap-2">
            <input
              id={`${id}-keep`}
              type="number"
              min={0}
              max={MAX_KEEP_ALIVE_MIN}
              step="any"
              className={input}
              value={keep}
              disabled={forever}
              aria-invalid={keepInvalid}
              aria-describedby={`${id}-keep-hint`}
              onChange={(e) => (setKeep(e.target.value), edited())}
              data-testid="builtin-keep-alive"
            />
            <span className="text-xs text-zinc-500">{t('local.builtin.settings.minutes')}</span>
            <label className="flex items-center gap-1 text-xs">
              <input type="checkbox" checked={forever} onChange={(e) => (setForever(e.target.checked), edited())} data-testid="builtin-keep-forever" />
              {t('local.builtin.settings.keepForever')}
            </label>
          </div>
          <p id={`${id}-keep-hint`} className={`text-xs ${keepInvalid ? 'text-red-700 dark:text-red-400' : 'text-zinc-500'}`}>
            {keepInvalid ? t('local.builtin.settings.keepAliveRange', { max: MAX_KEEP_ALIVE_MIN }) : t('local.builtin.settings.keepAliveHint')}
          </p>
        </div>
        <div className="space-y-1">
          <label className="block text-xs text-zinc-600 dark:text-zinc-400" htmlFor={`${id}-budget`}>
            {t('local.builtin.settings.budget')}
          </label>
          <div className="flex items-center gap-2">
            <input
              id={`${id}-budget`}
              type="number"
              step="0.1"
              className={input}
              value={budget}
              placeholder={String(Math.round((defaults.budgetBytes / GB) * 10) / 10)}
              aria-invalid={budgetInvalid}
              aria-describedby={`${id}-budget-hint`}
              onChange={(e) => (setBudget(e.target.value), edited())}
              data-testid="builtin-budget"
            />
            <span className="text-xs text-zinc-500">GB</span>
          </div>
          <p id={`${id}-budget-hint`} className={`text-xs ${budgetInvalid ? 'text-red-700 dark:text-red-400' : 'text-zinc-500'}`}>
            {budgetInvalid
              ? t('local.builtin.settings.budgetRange', { min: `${minBudgetGb} GB`, total: formatBytes(totalBytes) })
              : t('local.builtin.settings.budgetHint', { budget: formatBytes(defaults.budgetBytes), total: formatBytes(totalBytes) })}
          </p>
        </div>
        <div className="space-y-1">
          <label className="block text-xs text-zinc-600 dark:text-zinc-400" htmlFor={`${id}-threads`}>
            {t('local.builtin.settings.threads')}
          </label>
          <input
            id={`${id}-threads`}
            type="number"
            min={1}
            max={defaults.cpuCount}
            className={input}
            value={threads}
            placeholder={String(defaults.threads)}
            aria-invalid={Boolean(threadsField.error)}
            aria-describedby={`${id}-threads-hint`}
            onChange={(e) => (setThreads(e.target.value), edited())}
            data-testid="builtin-threads"
          />
          <p id={`${id}-threads-hint`} className={`text-xs ${threadsField.error ? 'text-red-700 dark:text-red-400' : 'text-zinc-500'}`}>
            {threadsField.error ? t('local.builtin.settings.threadsRange', { max: defaults.cpuCount }) : t('local.builtin.settings.threadsHint', { threads: defaults.threads, cores: defaults.cpuCount })}
          </p>
        </div>
      </div>
      <div className="flex items-center gap-2">
        <button type="submit" className={button} disabled={invalid} data-testid="builtin-settings-save">
          {t('local.save')}
        </button>
        <span className="text-xs text-zinc-500" role="status" data-testid="builtin-settings-saved">
          {saved ? t('local.builtin.settings.saved') : ''}
        </span>
      </div>
      {error && (
        <p role="alert" className="text-sm text-red-700 dark:text-red-400">
          {error.message}
        </p>
      )}
    </form>
  )
}

/**
 * A model's context length: the field shows what the model would load with; while it is edited the
 * memory that length takes is estimated from the GGUF (weights + context against the budget).
 */
export function ContextEditor({ model, status, onSaved }: { model: string; status: BuiltinStatus; onSaved: (next: BuiltinStatus) => void }) {
  const { t, i18n } = useTranslation()
  const id = useId()
  const own = status.settings.contextSizes[model]
  const [text, setText] = useState(own ? String(own) : '')
  const [plan, setPlan] = useState<BuiltinPlanInfo>()
  const [error, setError] = useState<AppError>()
  const field = wholeNumber(text, ENGINE_LIMITS.minContext, ENGINE_LIMITS.maxContext)
  const loaded = status.loaded.some((m) => m.modelId === model)

  // The estimate follows the field (after a short pause in typing); empty estimates the default.
  useEffect(() => {
    if (field.error) return
    let live = true
    const timer = setTimeout(() => {
      void bridge()
        .call('engine.plan', { model, ...(field.value ? { contextSize: field.value } : {}) })
        .then((r) => {
          if (!live) return
          if (r.ok) {
            setPlan(r.value)
            setError(undefined)
          } else setError(r.error)
        })
    }, 250)
    return () => {
      live = false
      clearTimeout(timer)
    }
  }, [model, field.value, field.error])

  const save = async (size: number | null) => {
    const r = await bridge().call('engine.setSettings', { contextSize: { model, size } })
    if (r.ok) {
      onSaved(r.value)
      if (size === null) setText('')
    } else setError(r.error)
  }
  const n = (v: number) => v.toLocaleString(i18n.language)
  const over = plan && plan.neededBytes > plan.budgetBytes

  return (
    <form
      className="space-y-1"
      data-testid={`builtin-context-editor-${model}`}
      onSubmit={(e) => {
        e.preventDefault()
        if (!field.error && field.value) void save(field.value)
      }}
    >
      <div className="flex items-center gap-2">
        <label className="text-xs text-zinc-600 dark:text-zinc-400" htmlFor={`${id}-ctx`}>
          {t('local.builtin.context.label')}
        </label>
        <input
          id={`${id}-ctx`}
          type="number"
          min={ENGINE_LIMITS.minContext}
          max={ENGINE_LIMITS.maxContext}
          step={256}
          className={input}
          value={text}
          placeholder={plan && !field.value ? String(plan.contextSize) : ''}
          aria-invalid={Boolean(field.error)}
          aria-describedby={`${id}-ctx-hint`}
          onChange={(e) => setText(e.target.value)}
          data-testid="builtin-context-input"
          autoFocus
        />
        <button type="submit" className={button} disabled={Boolean(field.error) || !field.value} data-testid="builtin-context-save">
          {t('local.save')}
        </button>
        {own !== undefined && (
          <button type="button" className={button} onClick={() => void save(null)} data-testid="builtin-context-default">
            {t('local.reset')}
          </button>
        )}
      </div>
      <p id={`${id}-ctx-hint`} className={`text-xs ${field.error || over ? 'text-red-700 dark:text-red-400' : 'text-zinc-500'}`} data-testid="builtin-context-estimate" aria-live="polite">
        {field.error
          ? t('local.builtin.context.range', { min: n(ENGINE_LIMITS.minContext), max: n(ENGINE_LIMITS.maxContext) })
          : plan
            ? [
                t('local.builtin.context.estimate', { needed: formatBytes(plan.neededBytes), weights: formatBytes(plan.weightsBytes), context: formatBytes(plan.contextBytes), tokens: n(plan.contextSize), budget: formatBytes(plan.budgetBytes) }),
                // The memory holds every slot's context: say how many there are.
                plan.slots && plan.slots > 1 ? `(${t('local.builtin.slots', { count: plan.slots })}.)` : '',
                field.value && plan.trainedContextSize && field.value > plan.trainedContextSize ? t('local.builtin.context.trained', { trained: n(plan.trainedContextSize) }) : '',
                over ? t('local.builtin.context.over') : '',
                loaded ? t('local.builtin.context.nextLoad') : ''
              ]
                .filter(Boolean)
                .join(' ')
            : ''}
      </p>
      {error && (
        <p role="alert" className="text-xs text-red-700 dark:text-red-400">
          {error.message}
        </p>
      )}
    </form>
  )
}
