import { lazy, Suspense, useEffect, useMemo, useState } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { useTranslation } from 'react-i18next'
import type { Message } from '../../../shared/data/message'
import { useRouter } from '../../stores/router-store'
import { useProviders } from '../providers/providers-store'
import { messageSetKey } from './branches'
import { chatActions, entriesFor, useChat, useVisiblePath } from './chat-store'
import { ConversationList } from './conversation-list'
import { CollapsiblePane } from '../../components/collapsible-pane'
import { ErrorCard } from './error-card'
import { MessageList } from './message-list'
import { usePrewarmTools } from '../tools/use-prewarm-tools'
import { ArtifactPanelSlot } from '../artifacts/artifact-panel-slot'
import { MessageUndoToast } from './message-undo-toast'
import { QueuedMessages } from './queued-messages'
import { useStableContextWindow } from './use-stable-context-window'
import { ChatHeader } from './chat-header'
import { ChatEmptyState } from './chat-empty-state'
import { ChatComposer } from './chat-composer'
import { errorCardAction, useMessageActions, useStopShortcuts } from './use-message-actions'

// Dialogs the page opens on demand load their code the first time they open.
const ApiKeyDialog = lazy(() => import('./api-key-dialog').then((m) => ({ default: m.ApiKeyDialog })))
const AgentSettingsDialog = lazy(() => import('./agent-settings-dialog').then((m) => ({ default: m.AgentSettingsDialog })))

const EMPTY: Message[] = []

export function ChatPage() {
  const { t } = useTranslation()
  const route = useRouter((s) => s.route)
  const conversationId = route.name === 'chat' ? route.params[0] : undefined
  // Each value is selected on its own (or shallowly, for this conversation's entries only): a
  // reply streaming in another conversation changes the store 20 times a second and must
  // re-render nothing here.
  const conversation = useChat((s) => s.conversations.find((c) => c.id === conversationId))
  const agent = useChat((s) => s.agents.find((a) => a.id === (conversation?.agentId ?? s.agentId ?? s.defaultAgentId)))
  const sendError = useChat((s) => s.sendError)
  const titlingNow = useChat((s) => (conversationId ? Boolean(s.titling[conversationId]) : false))
  const all = useChat((s) => (conversationId ? (s.messages[conversationId] ?? EMPTY) : EMPTY))
  // Rebuilt when the message set changes, not on every streaming commit of this conversation.
  const shape = messageSetKey(all)
  // eslint-disable-next-line react-hooks/exhaustive-deps -- keyed by the set's shape on purpose (see above)
  const ids = useMemo(() => new Set(all.map((m) => m.id)), [shape])
  const streaming = useChat(useShallow((s) => entriesFor(s.streaming, ids)))
  const branch = useChat(useShallow((s) => entriesFor(s.branch, ids)))
  const agentOpen = useChat((s) => s.agentEditorOpen)
  const picker = useProviders((s) => s.picker)
  const providersLoaded = useProviders((s) => s.loaded)
  const [keyFor, setKeyFor] = useState<{ providerId: string; retry(): void }>()

  useEffect(() => {
    void chatActions.open(conversationId)
  }, [conversationId])

  usePrewarmTools(agent?.id)
  const current =
    conversation?.providerId && conversation.modelId
      ? { providerId: conversation.providerId, modelId: conversation.modelId }
      : agent?.providerId && agent.modelId
        ? { providerId: agent.providerId, modelId: agent.modelId }
        : undefined
  // With no provider set up, the models the built-in engine found on disk are the way to start.
  const offline = picker.find((g) => g.provider.id === 'builtin')?.models.filter((m) => m.enabled) ?? []
  // No key and no model chosen: the first screen offers an offline chat (models on disk first, then the recommended ones).
  const firstRun = !current && providersLoaded && picker.every((g) => g.provider.id === 'builtin')
  const model = picker.flatMap((g) => g.models).find((m) => m.providerId === current?.providerId && m.id === current?.modelId)
  // The counter keeps one form while the picker's lists refresh.
  const contextWindow = useStableContextWindow(current, model?.contextWindowTokens)
  const path = useVisiblePath(all, branch)
  const isStreaming = path.some((m) => streaming[m.id])
  const actions = useMessageActions()
  useStopShortcuts(isStreaming, titlingNow, conversationId)

  return (
    <div className="flex h-full" data-testid="page-chat">
      <CollapsiblePane panel="conversations" label={t('chat.conversations')} shortcut="toggle-conversations">
        <ConversationList />
      </CollapsiblePane>
      <section className="flex min-w-0 flex-1 flex-col">
        <ChatHeader conversation={conversation} agent={agent} current={current} titlingNow={titlingNow} />
        {path.length === 0 ? (
          <ChatEmptyState firstRun={firstRun} offline={offline} hasModel={Boolean(current)} noProviders={picker.length === 0} />
        ) : (
          <MessageList path={path} all={all} streaming={streaming} actions={actions} onErrorAction={errorCardAction(current, setKeyFor)} />
        )}
        <QueuedMessages conversationId={conversationId} />
        {sendError && (
          <div className="mx-auto w-full max-w-4xl px-6">
            <ErrorCard error={sendError} />
          </div>
        )}
        <div className="relative">
          <MessageUndoToast />
          <ChatComposer conversationId={conversationId} conversation={conversation} agent={agent} current={current} model={model} contextWindow={contextWindow} path={path} isStreaming={isStreaming} />
        </div>
      </section>
      <ArtifactPanelSlot conversationId={conversationId} messages={path} all={all} onAskFix={(text) => chatActions.send(text, [], current)} />
      <Suspense fallback={null}>
        {agent && agentOpen && <AgentSettingsDialog agent={agent} open onClose={() => useChat.setState({ agentEditorOpen: false })} />}
        {keyFor && <ApiKeyDialog providerId={keyFor.providerId} open onClose={() => setKeyFor(undefined)} onRetry={keyFor.retry} />}
      </Suspense>
    </div>
  )
}
