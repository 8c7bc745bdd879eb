import { lazy, Suspense, useEffect, useMemo, useState } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { useTranslation } from 'react-i18next'
import { MessageSquare } from 'lucide-react'
import type { Message } from '../../../shared/data/message'
import { planHistory } from '../../../shared/chat/history-window'
import { countTokens } from '../../../shared/tokens/count-tokens'
import { useRouter } from '../../stores/router-store'
import { providerActions, useProviders } from '../providers/providers-store'
import { messageSetKey } from './branches'
import { chatActions, entriesFor, useChat, useVisiblePath } from './chat-store'
import { Composer } from './composer'
import { ComposerControls } from './composer-controls'
import { ConversationKnowledge } from '../knowledge/conversation-knowledge'
import { useContextLength } from './use-context-length'
import { ConversationList } from './conversation-list'
import { CollapsiblePane } from '../../components/collapsible-pane'
import { matchesShortcut } from '../../components/shortcuts'
import { ErrorCard, errorAction } from './error-card'
import { MessageList } from './message-list'
import type { MessageActions } from './message-view'
import { ModelPicker } from './model-picker'
import { usePrewarmTools } from '../tools/use-prewarm-tools'
import { MessageToolsToggle } from '../tools/message-tools-toggle'
import { CompetitionPicker } from './competition/competition-picker'
import { competitionActions } from './competition/competition-store'
import { ArtifactPanelSlot } from '../artifacts/artifact-panel-slot'
import { ConversationCost } from '../usage/spend'
import { agentName, conversationTitle } from './display-names'
import { draftKeyOf } from './drafts'
import { MessageUndoToast } from './message-undo-toast'
import { QueuedMessages } from './queued-messages'
import { useStableContextWindow } from './use-stable-context-window'
import { KeyStorageNote } from '../providers/key-storage-note'
import { RecommendedModels } from '../local-models/recommended-models'

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
  const defaultAgentId = useChat((s) => s.defaultAgentId)
  const sendError = useChat((s) => s.sendError)
  const draftParameters = useChat((s) => s.draftParameters)
  const draftKnowledge = useChat((s) => s.draftKnowledge)
  const titlingNow = useChat((s) => (conversationId ? Boolean(s.titling[conversationId]) : false))
  const all = useChat((s) => (conversationId ? (s.messages[conversationId] ?? EMPTY) : EMPTY))
  // Rebuilt when the message set changes, not on every streaming commit of this conversation.
  const shape = messageSetKey(all)
  // eslint-disable-next-line react-hooks/exhaustive-deps -- keyed by the set's shape on purpose (see above)
  const ids = useMemo(() => new Set(all.map((m) => m.id)), [shape])
  const streaming = useChat(useShallow((s) => entriesFor(s.streaming, ids)))
  const branch = useChat(useShallow((s) => entriesFor(s.branch, ids)))
  const agentOpen = useChat((s) => s.agentEditorOpen)
  const setAgentOpen = (open: boolean) => useChat.setState({ agentEditorOpen: open })
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
  // The counter shows what will be sent: the agent's history count, the summary in
  // use, and (with compression on) the part kept once the older messages are summarised.
  const params = useMemo(() => ({ ...agent?.parameters, ...(conversation ? conversation.parameters : draftParameters) }), [agent, conversation, draftParameters])
  const plan = useMemo(
    () =>
      planHistory(path, {
        fixedTokens: agent?.systemPrompt.trim() ? countTokens(agent.systemPrompt) + 4 : 0,
        window: contextWindow,
        ...(params.historyCount ? { historyCount: params.historyCount } : {}),
        ...(params.autoCompress ? { autoCompress: true } : {}),
        ...(params.compressAt ? { compressAt: params.compressAt } : {})
      }),
    [path, agent, contextWindow, params]
  )
  const historyTokens = plan.compress ? plan.compress.keep.reduce((n, m) => n + countTokens(m.content.map((p) => (p.type === 'text' ? p.text : '')).join('')) + 4, 0) : plan.tokens
  const contextLength = useContextLength(current?.providerId === 'ollama' ? current.providerId : undefined, current?.modelId)

  const actions: MessageActions = useMemo(
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

  useEffect(() => {
    if (isStreaming || !titlingNow || !conversationId) return
    // Esc also cancels the title task (its own stream) once the reply has ended.
    const onKey = (event: KeyboardEvent) => {
      if (matchesShortcut(event, 'stop') && !event.defaultPrevented && !document.querySelector('[role="dialog"]')) chatActions.cancelTitle(conversationId)
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [isStreaming, titlingNow, conversationId])

  useEffect(() => {
    if (!isStreaming) return
    // Esc stops the reply on screen, wherever the focus is (dialogs handle their own Esc first).
    const onKey = (event: KeyboardEvent) => {
      if (matchesShortcut(event, 'stop') && !event.defaultPrevented && !document.querySelector('[role="dialog"]')) chatActions.stop()
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [isStreaming])

  const onErrorAction = (message: Message, fix?: 'trim') => {
    const error = message.error
    if (!error) return
    if (fix === 'trim') return void chatActions.setParameters({ historyCount: 20 }).then(() => chatActions.regenerate(message, true))
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
      case 'context':
        // The card's main action summarises; trimming is its second button (onContextFix).
        void chatActions.setParameters({ autoCompress: true }).then(() => chatActions.regenerate(message, true))
        return
      default:
        chatActions.regenerate(message, true)
    }
  }

  return (
    <div className="flex h-full" data-testid="page-chat">
      <CollapsiblePane panel="conversations" label={t('chat.conversations')} shortcut="toggle-conversations">
        <ConversationList />
      </CollapsiblePane>
      <section className="flex min-w-0 flex-1 flex-col">
        <header className="flex h-14 shrink-0 items-center justify-between gap-3 border-b border-zinc-200 px-6 max-md:gap-2 max-md:px-3 dark:border-zinc-800">
          <h1 className="truncate text-base font-semibold" data-testid="conversation-title" data-titling={titlingNow || undefined} aria-busy={titlingNow}>
            {conversationTitle(conversation?.title, t)}
          </h1>
          {/* Shrinks with the column (an open artifact panel leaves it narrow): the title first, then the model chip; the agent button keeps its size. Nothing may slide under the panel. */}
          <div className="flex min-w-0 shrink items-center gap-2">
            <ConversationKnowledge conversationId={conversation?.id} draft={{ ids: draftKnowledge, set: (ids) => useChat.setState({ draftKnowledge: ids }) }} />
            <ModelPicker current={current} onPick={(p, m) => void chatActions.setModel(p, m)} />
            {agent && (
              <button
                onClick={() => setAgentOpen(true)}
                aria-label={t('agent.settings')}
                title={t('agent.settings')}
                data-testid="open-agent-settings"
                className="max-w-40 shrink-0 truncate rounded-md border border-zinc-300 px-2 py-1 text-sm whitespace-nowrap hover:bg-zinc-100 max-md:max-w-24 dark:border-zinc-700 dark:hover:bg-zinc-800"
              >
                {agentName(agent, defaultAgentId, t)}
              </button>
            )}
          </div>
        </header>
        {path.length === 0 ? (
          <div className="grid flex-1 place-items-center overflow-y-auto p-8 text-center">
            <div className={firstRun ? 'max-w-xl space-y-2' : 'max-w-md space-y-2'}>
              <MessageSquare aria-hidden className="mx-auto size-10 text-accent" strokeWidth={1.6} />
              {firstRun ? (
                <div className="space-y-2" data-testid="chat-offline">
                  <p className="text-sm font-medium">{t('chat.offlineTitle')}</p>
                  {offline.length > 0 && (
                    <>
                      <p className="text-xs text-zinc-500">{t('chat.offlineBody')}</p>
                      <ul className="space-y-1">
                        {offline.map((m) => (
                          <li key={m.id}>
                            <button
                              onClick={() => void chatActions.setModel('builtin', m.id)}
                              data-testid={`chat-offline-${m.id}`}
                              className="rounded-md border border-zinc-300 px-3 py-1 font-mono text-sm hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800"
                            >
                              {m.displayName ?? m.id}
                            </button>
                          </li>
                        ))}
                      </ul>
                    </>
                  )}
                  <p className="text-xs text-zinc-500">{offline.length > 0 ? t('chat.offlineOrDownload') : t('chat.offlineDownload')}</p>
                  <RecommendedModels onChat={(id) => chatActions.setModel('builtin', id)} />
                </div>
              ) : (
                <p className="text-sm text-zinc-600 dark:text-zinc-400" data-testid="chat-empty-hint">{current ? t('pages.chatEmpty') : t('chat.pickModelFirst')}</p>
              )}
              {!current && picker.length === 0 && (
                <a href="#/settings/providers" className="text-sm text-accent underline" data-testid="chat-add-key">
                  {t('chat.addKey')}
                </a>
              )}
              {!current && <KeyStorageNote />}
            </div>
          </div>
        ) : (
          <MessageList path={path} all={all} streaming={streaming} actions={actions} onErrorAction={onErrorAction} />
        )}
        <QueuedMessages conversationId={conversationId} />
        {sendError && (
          <div className="mx-auto w-full max-w-4xl px-6">
            <ErrorCard error={sendError} />
          </div>
        )}
        <div className="relative">
          <MessageUndoToast />
          <Composer
            draftKey={draftKeyOf(conversationId)}
            // The running cost, refreshed when a reply ends (or a message comes or goes).
            costNote={conversation ? <ConversationCost conversationId={conversation.id} refreshKey={`${path.length}:${isStreaming}`} /> : undefined}
            streaming={isStreaming}
            // Unknown (picker still loading, or a model the catalogue lacks): let the provider decide.
            vision={model ? Boolean(model.abilities.vision) : true}
            contextWindow={contextWindow}
          // Until the conversation (or agent) and the model lists are known, the counter waits.
          tokensPending={!providersLoaded || (conversationId ? !conversation : !agent)}
            historyTokens={historyTokens}
            disabled={!current}
            providerId={current?.providerId}
            // With 2–4 models chosen the message goes to a Chat Competition instead.
            onSend={(text, images, files) => competitionActions.intercept(text, images, files) || chatActions.send(text, images, current, files)}
            onStop={() => chatActions.stop()}
            tokenNote={[
              plan.compress ? t('controls.summarise') : plan.summary ? t('controls.summaryMarker', { n: plan.summary.covers }) : '',
              // Local models: the context length the server loads the model with (Ollama num_ctx).
              current?.providerId === 'ollama' ? `${t('controls.contextLength')} ${contextLength.value?.toLocaleString() ?? t('controls.contextLengthAuto')}` : ''
            ]
              .filter(Boolean)
              .join(' · ') || undefined}
            controls={
              <>
                <CompetitionPicker />
                <ComposerControls
                  model={model}
                  params={params}
                  onChange={(patch) => void chatActions.setParameters(patch)}
                  contextLength={contextLength.value}
                  onContextLength={contextLength.save}
                />
                <MessageToolsToggle agentId={agent?.id} />
              </>
            }
          />
        </div>
      </section>
      <ArtifactPanelSlot conversationId={conversationId} messages={path} all={all} onAskFix={(text) => chatActions.send(text, [], current)} />
      <Suspense fallback={null}>
        {agent && agentOpen && <AgentSettingsDialog agent={agent} open onClose={() => setAgentOpen(false)} />}
        {keyFor && <ApiKeyDialog providerId={keyFor.providerId} open onClose={() => setKeyFor(undefined)} onRetry={keyFor.retry} />}
      </Suspense>
    </div>
  )
}
