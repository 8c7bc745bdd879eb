import { useMemo } from 'react'
import { useTranslation } from 'react-i18next'
import type { Agent } from '../../../shared/data/agent'
import type { Conversation } from '../../../shared/data/conversation'
import type { Message } from '../../../shared/data/message'
import type { PickerModel } from '../../../shared/bridge/procedures/providers'
import { planHistory } from '../../../shared/chat/history-window'
import { countTokens } from '../../../shared/tokens/count-tokens'
import { useProviders } from '../providers/providers-store'
import { chatActions, useChat } from './chat-store'
import { Composer } from './composer'
import { ComposerControls } from './composer-controls'
import { useContextLength } from './use-context-length'
import { MessageToolsToggle } from '../tools/message-tools-toggle'
import { CompetitionPicker } from './competition/competition-picker'
import { competitionActions } from './competition/competition-store'
import { ConversationCost } from '../usage/spend'
import { draftKeyOf } from './drafts'

/** The composer with its controls (competition, the model's parameters, tools) and its token counter. */
export function ChatComposer({
  conversationId,
  conversation,
  agent,
  current,
  model,
  contextWindow,
  path,
  isStreaming
}: {
  conversationId: string | undefined
  conversation: Conversation | undefined
  agent: Agent | undefined
  current: { providerId: string; modelId: string } | undefined
  model: PickerModel | undefined
  contextWindow: number | undefined
  path: Message[]
  isStreaming: boolean
}) {
  const { t } = useTranslation()
  const draftParameters = useChat((s) => s.draftParameters)
  const providersLoaded = useProviders((s) => s.loaded)
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
  return (
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
          <ComposerControls model={model} params={params} onChange={(patch) => void chatActions.setParameters(patch)} contextLength={contextLength.value} onContextLength={contextLength.save} />
          <MessageToolsToggle agentId={agent?.id} />
        </>
      }
    />
  )
}
