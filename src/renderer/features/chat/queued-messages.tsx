import { useShallow } from 'zustand/react/shallow'
import { useTranslation } from 'react-i18next'
import { Clock, WifiOff } from 'lucide-react'
import { useApp } from '../../stores/app-store'
import { chatActions } from './chat-store'
import { draftKeyOf, restoreDraft } from './drafts'
import { useOutbox } from './outbox'

/**
 * Messages of this conversation waiting for the connection: shown where they will
 * appear, with "will send when reconnected" and Cancel, which puts the text back in the
 * composer. While the connection is lost and nothing waits, one line says what Send will do.
 */
export function QueuedMessages({ conversationId }: { conversationId: string | undefined }) {
  const { t } = useTranslation()
  const online = useApp((s) => s.connection === 'open')
  const items = useOutbox(useShallow((s) => s.items.filter((m) => m.conversationId === conversationId)))
  if (items.length === 0 && online) return null
  return (
    <div className="mx-auto w-full max-w-4xl space-y-2 px-6 pb-2" data-testid="outbox">
      {items.map((item) => (
        <div key={item.id} className="flex flex-col items-end" data-testid="queued-message" data-state={item.state}>
          <div className="max-w-[80%] rounded-2xl border border-dashed border-accent/50 bg-accent/5 px-4 py-2 whitespace-pre-wrap opacity-80">{item.text}</div>
          <div className="mt-1 flex items-center gap-2 text-xs text-zinc-500">
            <Clock aria-hidden className="size-3.5" />
            <span role="status">{item.state === 'sending' ? t('chatPolish.queuedSending') : t('chatPolish.queued')}</span>
            <button
              type="button"
              data-testid="cancel-queued"
              className="rounded px-1.5 py-0.5 hover:bg-zinc-200 hover:text-zinc-900 dark:hover:bg-zinc-800 dark:hover:text-white"
              onClick={() => {
                const cancelled = chatActions.cancelQueued(item.id)
                if (cancelled) restoreDraft(draftKeyOf(cancelled.conversationId), cancelled.text)
              }}
            >
              {t('chat.cancel')}
            </button>
          </div>
        </div>
      ))}
      {!online && items.length === 0 && (
        <p role="status" className="flex items-center justify-center gap-1.5 text-xs text-amber-700 dark:text-amber-400" data-testid="offline-hint">
          <WifiOff aria-hidden className="size-3.5" />
          {t('chatPolish.offlineHint')}
        </p>
      )}
    </div>
  )
}
