import { useTranslation } from 'react-i18next'
import { Brain, Globe, Zap } from 'lucide-react'
import type { ModelParameters } from '../../../shared/data/agent'
import type { PickerModel } from '../../../shared/bridge/procedures/providers'
import { modelControls } from '../../../shared/chat/model-controls'
import { useAppSearch } from '../tools/use-app-search'

/**
 * The composer's per-conversation controls, shown only where the model offers them
 * (src/shared/chat/model-controls.ts, the same function the core builds the request with):
 * web search, thinking on/off with its budget slider, reasoning effort, prompt caching.
 */
export function ComposerControls({
  model,
  params,
  onChange,
  contextLength,
  onContextLength
}: {
  model: PickerModel | undefined
  params: ModelParameters
  onChange(patch: Partial<ModelParameters>): void
  /** Local models: the user's context length (Ollama num_ctx); undefined is automatic. */
  contextLength?: number
  onContextLength?(value: number | undefined): void
}) {
  const { t } = useTranslation()
  const appSearch = useAppSearch()
  if (!model) return null
  const controls = modelControls({ providerId: model.providerId, id: model.id, extendParams: model.extendParams, abilities: model.abilities, maxOutput: model.maxOutput })
  // The app's own web search (Settings → Tools) serves models without search of their own.
  if (appSearch) controls.search = true
  const chip = (on: boolean) =>
    `inline-flex items-center gap-1 rounded-full border px-2.5 py-0.5 text-xs transition-colors ${on ? 'border-accent bg-accent/10 text-accent' : 'border-zinc-300 text-zinc-600 hover:bg-zinc-100 dark:border-zinc-700 dark:text-zinc-300 dark:hover:bg-zinc-800'}`
  const thinkingOn = controls.thinking ? (params.thinking ?? (params.thinkingBudget !== undefined ? true : controls.thinking.defaultOn)) : true
  const search = params.search ?? 'off'
  const local = model.providerId === 'ollama'
  if (!controls.search && !controls.thinking && !controls.budget && !controls.effort && !controls.caching && !local) return null
  return (
    <div className="mb-2 flex flex-wrap items-center gap-2" data-testid="composer-controls">
      {controls.search && (
        <button
          type="button"
          className={chip(search !== 'off')}
          aria-pressed={search !== 'off'}
          title={t('controls.searchHint')}
          data-testid="control-search"
          // off → on → auto → off: automatic lets Search Intent Recognition decide per message.
          onClick={() => onChange({ search: search === 'off' ? 'on' : search === 'on' ? 'auto' : 'off' })}
        >
          <Globe aria-hidden className="size-3.5" />
          {search === 'auto' ? t('controls.searchAuto') : t('controls.search')}
        </button>
      )}
      {controls.thinking && (
        <button type="button" className={chip(thinkingOn)} aria-pressed={thinkingOn} title={t('controls.thinkingHint')} data-testid="control-thinking" onClick={() => onChange({ thinking: !thinkingOn })}>
          <Brain aria-hidden className="size-3.5" />
          {t('controls.thinking')}
        </button>
      )}
      {controls.budget && thinkingOn && (
        <label className="flex items-center gap-1.5 text-xs text-zinc-600 dark:text-zinc-300">
          <span className="sr-only">{t('controls.budgetLabel')}</span>
          <input
            type="range"
            min={controls.budget.min}
            max={controls.budget.max}
            step={controls.budget.step}
            value={params.thinkingBudget ?? controls.budget.default}
            onChange={(e) => onChange({ thinkingBudget: Number(e.target.value), ...(controls.thinking ? { thinking: true } : {}) })}
            aria-label={t('controls.budgetLabel')}
            data-testid="control-budget"
            className="w-28 accent-[var(--color-accent,#6d5dfc)]"
          />
          <span data-testid="control-budget-value">{t('controls.budget', { n: (params.thinkingBudget ?? controls.budget.default).toLocaleString() })}</span>
        </label>
      )}
      {controls.effort && (
        <select
          value={params.reasoningEffort ?? ''}
          onChange={(e) => onChange({ reasoningEffort: e.target.value || undefined })}
          aria-label={t('controls.effort')}
          data-testid="control-effort"
          className="rounded-full border border-zinc-300 bg-transparent px-2 py-0.5 text-xs dark:border-zinc-700"
        >
          <option value="">{t('controls.effortDefault')}</option>
          {controls.effort.map((v) => (
            <option key={v} value={v}>
              {t('controls.effort')}: {v}
            </option>
          ))}
        </select>
      )}
      {controls.caching && (
        <button
          type="button"
          className={chip(params.contextCaching !== false)}
          aria-pressed={params.contextCaching !== false}
          title={t('controls.cachingHint')}
          data-testid="control-caching"
          onClick={() => onChange({ contextCaching: params.contextCaching === false })}
        >
          <Zap aria-hidden className="size-3.5" />
          {t('controls.caching')}
        </button>
      )}
      {local && onContextLength && (
        <label className="flex items-center gap-1 text-xs text-zinc-600 dark:text-zinc-300" title={t('controls.contextLengthHint')}>
          {t('controls.contextLength')}
          <input
            type="number"
            min={2048}
            max={128000}
            step={1024}
            placeholder={t('controls.contextLengthAuto')}
            defaultValue={contextLength ?? ''}
            key={contextLength ?? 'auto'}
            data-testid="control-context-length"
            onBlur={(e) => onContextLength(e.target.value.trim() ? Math.min(128000, Math.max(2048, Number(e.target.value))) : undefined)}
            className="w-20 rounded border border-zinc-300 bg-transparent px-1 py-0.5 dark:border-zinc-700"
          />
        </label>
      )}
    </div>
  )
}
