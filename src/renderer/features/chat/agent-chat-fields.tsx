import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Sparkles } from 'lucide-react'
import type { ModelParameters } from '../../../shared/data/agent'
import { bridge } from '../../stores/app-store'

const field = 'mt-1 w-full rounded-md border border-zinc-300 bg-transparent px-3 py-1.5 text-sm dark:border-zinc-700'
const HISTORY_CHOICES = [0, 4, 8, 16, 32, 64]

/**
 * An agent's conversation settings: how much history is sent, automatic compression
 * (scene Summary History Messages), web search and thinking defaults for its conversations.
 */
export function AgentChatFields({ params, setParam }: { params: ModelParameters; setParam<K extends keyof ModelParameters>(key: K, value: ModelParameters[K] | undefined): void }) {
  const { t } = useTranslation()
  return (
    <fieldset className="space-y-3 rounded-lg border border-zinc-200 p-3 dark:border-zinc-800" data-testid="agent-chat-fields">
      <legend className="px-1 text-xs font-semibold text-zinc-500 uppercase">{t('controls.historyCount')}</legend>
      <div className="grid grid-cols-2 gap-3">
        <label className="block text-sm font-medium">
          {t('controls.historyCount')}
          <select value={params.historyCount ?? 0} onChange={(e) => setParam('historyCount', Number(e.target.value) || undefined)} className={field} data-testid="agent-history-count">
            {HISTORY_CHOICES.map((n) => (
              <option key={n} value={n}>
                {n === 0 ? t('controls.historyAll') : t('controls.historyLast', { n })}
              </option>
            ))}
          </select>
        </label>
        <label className="block text-sm font-medium">
          {t('controls.searchMode')}
          <select value={params.search ?? 'off'} onChange={(e) => setParam('search', e.target.value === 'off' ? undefined : (e.target.value as 'on' | 'auto'))} className={field} data-testid="agent-search">
            <option value="off">{t('controls.searchOff')}</option>
            <option value="on">{t('controls.searchOn')}</option>
            <option value="auto">{t('controls.searchAutoOption')}</option>
          </select>
        </label>
        <label className="block text-sm font-medium">
          {t('controls.thinking')}
          <select
            value={params.thinking === undefined ? '' : params.thinking ? 'on' : 'off'}
            onChange={(e) => setParam('thinking', e.target.value === '' ? undefined : e.target.value === 'on')}
            className={field}
            data-testid="agent-thinking"
          >
            <option value="">{t('controls.thinkingDefault')}</option>
            <option value="on">{t('controls.thinkingOn')}</option>
            <option value="off">{t('controls.thinkingOff')}</option>
          </select>
        </label>
        <label className="block text-sm font-medium">
          {t('controls.compressAt')}
          <input
            type="number"
            min={10}
            max={100}
            step={5}
            value={Math.round((params.compressAt ?? 1) * 100)}
            disabled={!params.autoCompress}
            onChange={(e) => setParam('compressAt', e.target.value ? Math.min(1, Math.max(0.1, Number(e.target.value) / 100)) : undefined)}
            className={field}
            data-testid="agent-compress-at"
          />
        </label>
      </div>
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" checked={params.autoCompress ?? false} onChange={(e) => setParam('autoCompress', e.target.checked || undefined)} data-testid="agent-auto-compress" />
        {t('controls.autoCompress')}
      </label>
      {/* Artifacts (the instruction is added by the core, see shared/artifacts/artifact-kinds.ts). */}
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" checked={params.artifacts ?? false} onChange={(e) => setParam('artifacts', e.target.checked || undefined)} data-testid="agent-artifacts" />
        {t('artifacts.setting')}
      </label>
    </fieldset>
  )
}

/** Scenes Summary Agent Title / Description / Tags: fill the fields from the system prompt. */
export function GenerateAgentMeta({
  systemPrompt,
  model,
  onGenerated
}: {
  systemPrompt: string
  model?: { providerId: string; modelId: string }
  onGenerated(meta: { name: string; description: string; tags: string[] }): void
}) {
  const { t } = useTranslation()
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string>()
  return (
    <div>
      <button
        type="button"
        disabled={busy || !systemPrompt.trim()}
        data-testid="agent-generate-meta"
        className="inline-flex items-center gap-1.5 rounded-md border border-zinc-300 px-3 py-1 text-xs hover:bg-zinc-100 disabled:opacity-40 dark:border-zinc-700 dark:hover:bg-zinc-800"
        onClick={async () => {
          setBusy(true)
          setError(undefined)
          const result = await bridge().call('chat.agentMeta', { systemPrompt, ...(model ?? {}) })
          setBusy(false)
          if (result.ok) onGenerated(result.value)
          else setError(result.error.message)
        }}
      >
        <Sparkles aria-hidden className="size-3.5" />
        {busy ? t('controls.generating') : t('controls.generateMeta')}
      </button>
      {error && (
        <p role="alert" className="mt-1 text-xs text-red-600">
          {error}
        </p>
      )}
    </div>
  )
}
