import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { RefreshCw, TriangleAlert } from 'lucide-react'
import type { Message } from '../../../shared/data/message'
import type { RetryNotice } from '../../../shared/stream/events'
import { describeAppError, type Locale } from '../../../shared/errors/catalogue'

/**
 * "Rate limited, retrying in 4 s… (2/3)" while the runtime waits before a retry.
 * The seconds count down from when the notice arrived; a new attempt restarts them.
 */
export function RetryNote({ notice }: { notice: RetryNotice }) {
  const { t } = useTranslation()
  const [left, setLeft] = useState(() => Math.ceil(notice.waitMs / 1000))
  useEffect(() => {
    const until = Date.now() + notice.waitMs
    setLeft(Math.ceil(notice.waitMs / 1000))
    const timer = setInterval(() => setLeft(Math.max(0, Math.ceil((until - Date.now()) / 1000))), 250)
    return () => clearInterval(timer)
  }, [notice])
  const of = notice.maxAttempts ? ` (${notice.attempt}/${notice.maxAttempts})` : ''
  const key = notice.kind === 'rate_limit' ? 'chatPolish.retryRateLimited' : notice.kind === 'connection' ? 'chatPolish.retryConnection' : 'chatPolish.retryServer'
  return (
    <div role="status" className="mt-2 flex items-center gap-1.5 text-xs text-amber-700 dark:text-amber-400" data-testid="retry-note">
      <RefreshCw aria-hidden className="size-3.5 animate-spin [animation-duration:2s]" />
      {t(key, { s: left, status: notice.status ?? '' })}
      {of}
    </div>
  )
}

/** Why a reply stopped early: the user stopped it, the connection dropped, or the app closed. */
export type InterruptionReason = 'stopped' | 'connection' | 'unknown'

export function interruptionReason(message: Message): InterruptionReason {
  if (message.meta?.interruptedBy === 'user') return 'stopped'
  if (message.error) return 'connection'
  return 'unknown'
}

/**
 * An interrupted reply keeps its text and offers Continue. Once continued, the
 * continuation below answers it and this note goes (no second Continue left behind).
 */
export function InterruptedNote({ message, onContinue }: { message: Message; onContinue(): void }) {
  const { t, i18n } = useTranslation()
  const reason = interruptionReason(message)
  const detail = message.error ? describeAppError(message.error, (i18n.language === 'zh-CN' ? 'zh-CN' : 'en') as Locale) : undefined
  return (
    <div className="mt-2 text-xs text-amber-700 dark:text-amber-400" data-testid="interrupted" data-reason={reason}>
      <div className="flex flex-wrap items-center gap-2">
        <TriangleAlert aria-hidden className="size-3.5 shrink-0" />
        <span>{t(`chatPolish.interrupted.${reason}`)}</span>
        <button className="rounded border border-current px-2 py-0.5 hover:bg-amber-100 dark:hover:bg-amber-950" onClick={onContinue} data-testid="continue">
          {t('chat.continue')}
        </button>
      </div>
      {message.error && (
        <details className="mt-1 text-zinc-500 dark:text-zinc-400">
          <summary className="cursor-pointer">{t('chat.errorDetail', { type: message.error.errorType, status: message.error.status ?? '–' })}</summary>
          <p className="mt-1">{detail?.title}</p>
          <pre className="mt-1 whitespace-pre-wrap">{message.error.message}</pre>
        </details>
      )}
    </div>
  )
}
