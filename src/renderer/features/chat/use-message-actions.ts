import { useEffect, useMemo } from 'react'
import type { Message } from '../../../shared/data/message'
import { providerActions } from '../providers/providers-store'
import { matchesShortcut } from '../../components/shortcuts'
import { chatActions } from './chat-store'
import { errorAction } from './error-card'
import type { MessageActions } from './message-view'

/** What a message's buttons do. */
export function useMessageActions(): MessageActions {
  return useMemo(
    () => ({
      copy: (m) => chatActions.copy(m),
      edit: (m, text, send = true) => (m.role === 'user' && send ? chatActions.editAndResend(m, text) : void chatActions.updateMessage(m, text)),
      regenerate: (m) => chatActions.regenerate(m),
      deleteAndRegenerate: (m) => chatActions.regenerate(m, true),
      remove: (m, also) => void chatActions.deleteMessage(m, also),
      continueReply: (m) => chatActions.continueReply(m),
      switchBranch: (m, d) => chatActions.switchBranch(m, d)
    }),
    []
  )
}

/** What an error card's main action (or its trim button) does; a locked key asks for the key through `askKey`. */
export function errorCardAction(current: { providerId: string } | undefined, askKey: (ask: { providerId: string; retry(): void }) => void) {
  return (message: Message, fix?: 'trim'): void => {
    const error = message.error
    if (!error) return
    if (fix === 'trim') return void chatActions.setParameters({ historyCount: 20 }).then(() => chatActions.regenerate(message, true))
    switch (errorAction(error)) {
      case 'unlock':
        void providerActions.load()
        askKey({ providerId: message.providerId ?? current?.providerId ?? 'openai', retry: () => chatActions.regenerate(message, true) })
        return
      case 'pull-model':
        location.hash = `/local-models?pull=${encodeURIComponent(message.modelId ?? '')}`
        return
      case 'continue':
        chatActions.continueReply(message)
        return
      case 'context':
        // The card's main action summarises; trimming is its second button (onContextFix).
        void chatActions.setParameters({ autoCompress: true }).then(() => chatActions.regenerate(message, true))
        return
      default:
        chatActions.regenerate(message, true)
    }
  }
}

/** Esc stops the reply on screen, or once it has ended the title task (its own stream), wherever the focus is. */
export function useStopShortcuts(isStreaming: boolean, titlingNow: boolean, conversationId: string | undefined): void {
  useEffect(() => {
    if (isStreaming || !titlingNow || !conversationId) return
    const onKey = (event: KeyboardEvent) => {
      if (matchesShortcut(event, 'stop') && !event.defaultPrevented && !document.querySelector('[role="dialog"]')) chatActions.cancelTitle(conversationId)
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [isStreaming, titlingNow, conversationId])

  useEffect(() => {
    if (!isStreaming) return
    // Dialogs handle their own Esc first.
    const onKey = (event: KeyboardEvent) => {
      if (matchesShortcut(event, 'stop') && !event.defaultPrevented && !document.querySelector('[role="dialog"]')) chatActions.stop()
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [isStreaming])
}
