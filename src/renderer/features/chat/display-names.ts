import type { TFunction } from 'i18next'
import type { Agent } from '../../../shared/data/agent'
import { DEFAULT_AGENT_NAME, isUntitled } from '../../../shared/chat/default-names'

/** A conversation's title as shown: the stored default ("New chat") in the user's language. */
export const conversationTitle = (title: string | undefined, t: TFunction): string => (title === undefined || isUntitled(title) ? t('chat.newChat') : title)

/** An agent's name as shown: the default agent's untouched name in the user's language. */
export const agentName = (agent: Pick<Agent, 'id' | 'name'>, defaultAgentId: string | undefined, t: TFunction): string =>
  agent.name === DEFAULT_AGENT_NAME && (defaultAgentId === undefined || agent.id === defaultAgentId) ? t('chatPolish.defaultAgentName') : agent.name

/** The emoji the core gives the default agent as its avatar; the page draws an icon instead. */
export const DEFAULT_AGENT_AVATAR = '💬'
