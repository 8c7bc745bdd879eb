import type { Contract } from '../../shared/bridge/contract'
import type { Store } from '../store'
import type { ChatService } from './chat-service'
import type { Implementation } from '../bridge/router'

type ChatHandlers = Pick<Implementation<Contract>, Extract<keyof Contract, `chat.${string}`>>


export function chatHandlers(chat: () => ChatService, store: () => Store): ChatHandlers {
  return {
    'chat.send': (input, c) => chat().send(input, c),
    'chat.regenerate': (input, c) => chat().regenerate(input, c),
    'chat.editAndResend': (input, c) => chat().editAndResend(input, c),
    'chat.continue': (input, c) => chat().continueReply(input, c),
    'chat.stop': ({ messageId }) => chat().stop(messageId),
    'chat.sidebar': () => {
      const defaultAgent = chat().defaultAgent()
      // The default agent first, then the others in the order they were made (as the page adds them).
      const agents = store()
        .agents.list()
        .sort((a, b) => Number(b.id === defaultAgent.id) - Number(a.id === defaultAgent.id) || a.createdAt - b.createdAt || a.id.localeCompare(b.id))
      return { agents, conversations: store().conversations.list(), defaultAgentId: defaultAgent.id }
    },
    'chat.messages': ({ conversationId }) => {
      store().conversations.require(conversationId)
      return store().messages.list(conversationId)
    },
    'chat.deleteMessage': ({ messageId }) => chat().deleteMessage(messageId),
    'chat.title': (input, c) => chat().title(input, c),
    'chat.translate': (input) => chat().translate(input),
    'chat.forgetSummary': (input) => chat().forgetSummary(input),
    'chat.agentMeta': (input) => chat().agentMeta(input)
  }
}
