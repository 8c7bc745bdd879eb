import type { Feature, ProceduresOf } from '../feature'
import type { Store } from '../store'
import type { StreamHub } from '../bridge/stream-hub'
import type { ProviderService } from '../providers/provider-service'
import type { ModelCaller } from '../caller/model-caller'
import type { ImageService } from '../images/image-service'
import type { AttachmentService } from '../attachments/attachment-service'
import type { KnowledgeService } from '../knowledge/knowledge-service'
import type { ToolService } from '../tools/tool-service'
import { replyContextHook } from '../knowledge/reply-context'
import { chatToolsHook } from '../tools/chat-tools'
import { ChatService } from './chat-service'
import { Competition } from './competition'
import { chatHandlers } from './handlers'
import { competitionHandlers } from './competition-handlers'

interface Deps {
  store: Store
  hub: StreamHub
  providers: ProviderService
  caller: ModelCaller
  images: ImageService
  attachments: AttachmentService
  knowledge: KnowledgeService
  tools: ToolService
}

/** Conversations with a model, and Chat Competition (one question to several models) on top. */
export const chatFeature: Feature<Deps, { chat: ChatService; competition: Competition }, ProceduresOf<'chat' | 'competition'>> = {
  create: ({ store, hub, providers, caller, images, attachments, knowledge, tools }) => {
    const chat = new ChatService({
      agents: store.agents,
      conversations: store.conversations,
      messages: store.messages,
      caller,
      runtimeFor: (providerId) => providers.runtime(providerId),
      modelFacts: (providerId, modelId) => providers.modelFacts(providerId, modelId),
      searchLimits: () => {
        const { searchMaxResults: maxResults, searchMaxUses: maxUses } = store.settings.app()
        return { ...(maxResults ? { maxResults } : {}), ...(maxUses ? { maxUses } : {}) }
      },
      // The settings are parsed once per change, not once per question a reply asks (store.settings.app()).
      contextLength: (providerId, modelId) => store.settings.app().contextLengths?.[`${providerId}/${modelId}`],
      tasks: hub,
      saveImage: (input) => images.saveChatImage(input),
      fileContext: (fileIds) => attachments.context(fileIds),
      knowledge: replyContextHook(knowledge),
      knowledgeAttach: {
        check: (kbIds) => kbIds.forEach((id) => knowledge.require(id)),
        attach: (conversationId, kbIds) => void knowledge.setAttached({ kind: 'conversation', id: conversationId }, kbIds)
      },
      tools: chatToolsHook(tools)
    })
    const competition = new Competition({
      chat,
      agents: store.agents,
      conversations: store.conversations,
      messages: store.messages,
      startStream: (run) => hub.start('chat.send', run)
    })
    return { chat, competition }
  },
  handlers: (use) => ({
    ...chatHandlers(use('chat', 'Chat'), use('store', 'Chat')),
    ...competitionHandlers(use('competition', 'Chat'))
  }),
  // The default agent exists before the first question.
  start: ({ chat }) => void chat.defaultAgent()
}
