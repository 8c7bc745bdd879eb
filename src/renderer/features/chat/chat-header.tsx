import { useTranslation } from 'react-i18next'
import type { Agent } from '../../../shared/data/agent'
import type { Conversation } from '../../../shared/data/conversation'
import { chatActions, useChat } from './chat-store'
import { ConversationKnowledge } from '../knowledge/conversation-knowledge'
import { ModelPicker } from './model-picker'
import { agentName, conversationTitle } from './display-names'

/** The conversation's title, its knowledge bases, the model picker and the agent's settings button. */
export function ChatHeader({
  conversation,
  agent,
  current,
  titlingNow
}: {
  conversation: Conversation | undefined
  agent: Agent | undefined
  current: { providerId: string; modelId: string } | undefined
  titlingNow: boolean
}) {
  const { t } = useTranslation()
  const defaultAgentId = useChat((s) => s.defaultAgentId)
  const draftKnowledge = useChat((s) => s.draftKnowledge)
  return (
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
            onClick={() => useChat.setState({ agentEditorOpen: true })}
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
  )
}
