import { useTranslation } from 'react-i18next'
import { chatActions, useChat } from './chat-store'

/** "Message deleted · Undo" for a few seconds after a delete, like a conversation's. */
export function MessageUndoToast() {
  const { t } = useTranslation()
  const pending = useChat((s) => s.pendingMessageDelete)
  if (!pending) return null
  return (
    <div className="pointer-events-none absolute inset-x-0 bottom-full z-20 mb-2 flex justify-center">
      <div role="status" className="pointer-events-auto flex items-center gap-3 rounded-md bg-zinc-800 px-3 py-2 text-xs text-white shadow-lg" data-testid="undo-message-toast">
        <span>{t('chatPolish.messageDeleted')}</span>
        <button onClick={() => chatActions.undoMessageDelete()} className="font-semibold underline" data-testid="undo-message-delete">
          {t('chat.undo')}
        </button>
      </div>
    </div>
  )
}
