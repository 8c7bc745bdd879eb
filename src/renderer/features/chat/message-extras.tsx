import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { ChosenOptions } from '../../../shared/chat/message-meta'
import type { SourceItem } from '../../../shared/chat/citations'
import type { Message } from '../../../shared/data/message'
import { bridge } from '../../stores/app-store'
import { SafeLink } from './markdown/safe-link'

/** What the user asked the reply with (thinking, budget, effort, cache, search), under its model name. */
export function ChosenOptionsLine({ options }: { options: ChosenOptions | undefined }) {
  const { t } = useTranslation()
  if (!options) return null
  const parts: string[] = []
  if (options.thinking !== undefined) parts.push(options.thinking ? t('controls.chosenThinkingOn') : t('controls.chosenThinkingOff'))
  if (options.thinking && options.budget !== undefined) parts.push(t('controls.chosenBudget', { n: options.budget.toLocaleString() }))
  if (options.effort) parts.push(t('controls.chosenEffort', { v: options.effort }))
  if (options.caching !== undefined) parts.push(options.caching ? t('controls.chosenCacheOn') : t('controls.chosenCacheOff'))
  if (options.search) parts.push(options.searchRoute === 'app-tool' ? t('controls.chosenAppSearch') : t('controls.chosenSearch'))
  if (parts.length === 0) return null
  return (
    <div className="mb-1 text-[11px] text-zinc-500" data-testid="message-options" title={t('controls.chosen')}>
      {parts.join(' · ')}
    </div>
  )
}

/** The numbered sources under a reply; addresses the URL policy refuses are shown as text. */
export function SourceList({ sources, messageId }: { sources: readonly SourceItem[]; messageId: string }) {
  const { t } = useTranslation()
  if (sources.length === 0) return null
  return (
    <section className="mt-3 border-t border-zinc-200 pt-2 text-xs dark:border-zinc-800" data-testid="citations" aria-label={t('controls.sources')}>
      <div className="mb-1 font-medium text-zinc-500">{t('controls.sources')}</div>
      <ol className="space-y-0.5">
        {sources.map((s) => (
          <li key={s.n} id={`cite-${messageId}-${s.n}`} data-testid="citation">
            <span className="text-zinc-500">[{s.n}]</span>{' '}
            {/* The one link policy (SafeLink): a refused address is text, a deceptive one is checked. */}
            <SafeLink href={s.href} className="text-accent underline">
              {s.title}
            </SafeLink>
            {s.host && s.title !== s.href && <span className="ml-1 text-zinc-400">{s.host}</span>}
          </li>
        ))}
      </ol>
    </section>
  )
}

const LANGUAGES = ['en', 'zh-CN', 'ja', 'ko', 'fr', 'de', 'es', 'pt', 'ru', 'ar']

/** Scene Translator: translations kept under the message, and a way to ask for another language. */
export function Translations({ message, onUpdated }: { message: Message; onUpdated(message: Message): void }) {
  const { t, i18n } = useTranslation()
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string>()
  const translations = Object.entries(message.meta?.translations ?? {})
  const translate = async (language: string) => {
    setBusy(true)
    setError(undefined)
    const result = await bridge().call('chat.translate', { messageId: message.id, language })
    setBusy(false)
    if (result.ok) onUpdated(result.value)
    else setError(result.error.message)
  }
  return (
    <>
      {translations.map(([lang, text]) => (
        <div key={lang} className="mt-2 rounded-md border-l-2 border-accent/60 bg-zinc-50 px-3 py-1.5 text-sm dark:bg-zinc-900" data-testid="translation" data-lang={lang}>
          <div className="mb-0.5 text-[11px] text-zinc-500">{t('controls.translation', { lang })}</div>
          <div className="whitespace-pre-wrap">{text}</div>
        </div>
      ))}
      {busy && <div className="mt-1 text-xs text-zinc-500">{t('controls.translating')}</div>}
      {error && (
        <p role="alert" className="mt-1 text-xs text-red-600">
          {error}
        </p>
      )}
      <TranslateMenu onPick={(lang) => void translate(lang)} defaultLanguage={i18n.language} disabled={busy} />
    </>
  )
}

function TranslateMenu({ onPick, defaultLanguage, disabled }: { onPick(language: string): void; defaultLanguage: string; disabled: boolean }) {
  const { t } = useTranslation()
  return (
    <select
      value=""
      disabled={disabled}
      onChange={(e) => e.target.value && onPick(e.target.value)}
      aria-label={t('controls.translateTo')}
      data-testid="op-translate"
      className="mt-1 rounded border border-transparent bg-transparent px-1 py-0.5 text-xs text-zinc-500 opacity-0 group-focus-within:opacity-100 group-hover:opacity-100 [@media(hover:none)]:opacity-100 hover:border-zinc-300 dark:hover:border-zinc-700"
    >
      <option value="">{t('controls.translate')}…</option>
      {[defaultLanguage, ...LANGUAGES.filter((l) => l !== defaultLanguage)].map((l) => (
        <option key={l} value={l}>
          {l}
        </option>
      ))}
    </select>
  )
}

/** The mark a history summary leaves in the conversation: what it replaces, its text, and "summarise again". */
export function SummaryMarker({ message, onUpdated }: { message: Message; onUpdated(message: Message): void }) {
  const { t } = useTranslation()
  const summary = message.meta?.historySummary
  if (!summary) return null
  return (
    <details className="mx-6 my-2 rounded-lg border border-dashed border-accent/50 px-3 py-1.5 text-xs text-zinc-600 dark:text-zinc-300" data-testid="summary-marker">
      <summary className="cursor-pointer select-none">
        {t('controls.summaryMarker', { n: summary.covers })} — {t('controls.summaryShow')}
      </summary>
      <p className="mt-1 whitespace-pre-wrap" data-testid="summary-text">
        {summary.text}
      </p>
      <button
        type="button"
        className="mt-1 rounded border border-current px-2 py-0.5"
        data-testid="summary-redo"
        onClick={() => void bridge().call('chat.forgetSummary', { messageId: message.id }).then((r) => r.ok && onUpdated(r.value))}
      >
        {t('controls.summaryRedo')}
      </button>
    </details>
  )
}
