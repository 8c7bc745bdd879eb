import { useEffect, useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { messageText, type Message } from '../../../shared/data/message'
import { useRouter } from '../../stores/router-store'
import { providerActions, useProviders } from '../providers/providers-store'
import { ApiKeyDialog } from './api-key-dialog'
import { chatActions, useChat, useVisiblePath } from './chat-store'
import { Composer, estimateTextTokens } from './composer'
import { ConversationList } from './conversation-list'
import { ErrorCard, errorAction } from './error-card'
import { MessageList } from './message-list'
import type { MessageActions } from './message-view'
import { ModelPicker } from './model-picker'
import { AgentSettingsDialog } from './agent-settings-dialog'
import { usePrewarmTools } from '../tools/use-prewarm-tools'

const EMPTY: Message[] = []

export function ChatPage() {
  const { t } = useTranslation()
  const route = useRouter((s) => s.route)
  const conversationId = route.name === 'chat' ? route.params[0] : undefined
  const { conversations, agents, defaultAgentId, agentId, streaming, branch, sendError } = useChat()
  const [agentOpen, setAgentOpen] = useState(false)
  const all = useChat((s) => (conversationId ? (s.messages[conversationId] ?? EMPTY) : EMPTY))
  const picker = useProviders((s) => s.picker)
  const [keyFor, setKeyFor] = useState<{ providerId: string; retry(): void }>()

  useEffect(() => {
    void chatActions.open(conversationId)
  }, [conversationId])

  const conversation = conversations.find((c) => c.id === conversationId)
  const agent = agents.find((a) => a.id === (conversation?.agentId ?? agentId ?? defaultAgentId))
  usePrewarmTools(agent?.id)
  const current =
    conversation?.providerId && conversation.modelId
      ? { providerId: conversation.providerId, modelId: conversation.modelId }
      : agent?.providerId && agent.modelId
        ? { providerId: agent.providerId, modelId: agent.modelId }
        : undefined
  const model = picker.flatMap((g) => g.models).find((m) => m.providerId === current?.providerId && m.id === current?.modelId)
  const path = useVisiblePath(all, branch)
  const isStreaming = path.some((m) => streaming[m.id])
  const historyTokens = useMemo(() => path.reduce((n, m) => n + estimateTextTokens(messageText(m.content)) + 4, 0), [path])

  const actions: MessageActions = useMemo(
    () => ({
      copy: (m) => chatActions.copy(m),
      edit: (m, text) => (m.role === 'user' ? chatActions.editAndResend(m, text) : void chatActions.updateMessage(m, text)),
      regenerate: (m) => chatActions.regenerate(m),
      deleteAndRegenerate: (m) => chatActions.regenerate(m, true),
      remove: (m) => void chatActions.deleteMessage(m),
      continueReply: (m) => chatActions.continueReply(m),
      switchBranch: (m, d) => chatActions.switchBranch(m, d)
    }),
    []
  )

  useEffect(() => {
    if (!isStreaming) return
    // Esc stops the reply on screen, wherever the focus is (dialogs handle their own Esc first).
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape' && !event.defaultPrevented && !document.querySelector('[role="dialog"]')) chatActions.stop()
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [isStreaming])

  const onErrorAction = (message: Message) => {
    const error = message.error
    if (!error) return
    switch (errorAction(error)) {
      case 'unlock':
        void providerActions.load()
        setKeyFor({ providerId: message.providerId ?? current?.providerId ?? 'openai', retry: () => chatActions.regenerate(message, true) })
        return
      case 'pull-model':
        location.hash = `/local-models?pull=${encodeURIComponent(message.modelId ?? '')}`
        return
      case 'continue':
        chatActions.continueReply(message)
        return
      default:
        chatActions.regenerate(message, true)
    }
  }

  return (
    <div className="flex h-full" data-testid="page-chat">
      <ConversationList />
      <section className="flex min-w-0 flex-1 flex-col">
        <header className="flex h-14 shrink-0 items-center justify-between gap-3 border-b border-zinc-200 px-6 dark:border-zinc-800">
          <h1 className="truncate text-base font-semibold" data-testid="conversation-title">
            {conversation?.title ?? t('chat.newChat')}
          </h1>
          <div className="flex items-center gap-2">
            <ModelPicker current={current} onPick={(p, m) => void chatActions.setModel(p, m)} />
            {agent && (
              <button
                onClick={() => setAgentOpen(true)}
                aria-label={t('agent.settings')}
                title={t('agent.settings')}
                data-testid="open-agent-settings"
                className="rounded-md border border-zinc-300 px-2 py-1 text-sm hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800"
              >
                {agent.name}
              </button>
            )}
          </div>
        </header>
        {path.length === 0 ? (
          <div className="grid flex-1 place-items-center p-8 text-center">
            <div className="max-w-md space-y-2">
              <svg aria-hidden viewBox="0 0 24 24" className="mx-auto size-10 text-accent" fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round" strokeLinejoin="round">
                <path d="M4 5h16v11H8l-4 4z" />
              </svg>
              <p className="text-sm text-zinc-600 dark:text-zinc-400">{current ? t('pages.chatEmpty') : t('chat.pickModelFirst')}</p>
              {!current && picker.length === 0 && (
                <a href="#/settings" className="text-sm text-accent underline">
                  {t('chat.addKey')}
                </a>
              )}
            </div>
          </div>
        ) : (
          <MessageList path={path} all={all} streaming={streaming} actions={actions} onErrorAction={onErrorAction} />
        )}
        {sendError && (
          <div className="mx-auto w-full max-w-4xl px-6">
            <ErrorCard error={sendError} />
          </div>
        )}
        <Composer
          streaming={isStreaming}
          // Unknown (picker still loading, or a model the catalogue lacks): let the provider decide.
          vision={model ? Boolean(model.abilities.vision) : true}
          contextWindow={model?.contextWindowTokens}
          historyTokens={historyTokens}
          disabled={!current}
          providerId={current?.providerId}
          onSend={(text, images, files) => chatActions.send(text, images, current, files)}
          onStop={() => chatActions.stop()}
        />
      </section>
      {agent && agentOpen && <AgentSettingsDialog agent={agent} open onClose={() => setAgentOpen(false)} />}
      {keyFor && <ApiKeyDialog providerId={keyFor.providerId} open onClose={() => setKeyFor(undefined)} onRetry={keyFor.retry} />}
    </div>
  )
}
