import type { StreamHub } from '../bridge/stream-hub'
import type { CoreContext } from '../context'
import { readAppSettings } from '../../shared/data/app-settings'
import type { JsonObject } from '../../shared/data/json'
import { rerankDocuments } from './rerank'
import { readWebPage } from '../tools/builtin/read-web-page'
import type { InitStep } from '../services/init-service'
import { KnowledgeEvalsRepository } from '../store/repositories/knowledge-evals'
import { KnowledgeRepository } from '../store/repositories/knowledge'
import { EvalService } from './eval-service'
import { KnowledgeService } from './knowledge-service'
import { replyContextHook } from './reply-context'
import type { ChatRequest } from '../runtime/types'

/** Knowledge bases, once the store, the providers and the embedding service exist; resumes what a crash interrupted. */
export function knowledgeInitStep(context: CoreContext, hub: () => StreamHub): InitStep {
  return {
    phase: 'migrating',
    run() {
      const store = context.store
      const providers = context.providers
      const embeddings = context.embeddings
      if (!store || !providers || !embeddings) throw new Error('The local data could not be opened, so knowledge bases cannot start.')
      const repo = new KnowledgeRepository(store.db)
      const knowledge = new KnowledgeService({
        repo,
        dataDir: context.dataDir,
        embed: (providerId, modelId) => (texts, options) => embeddings.create({ providerId, modelId, input: texts }, options),
        startStream: (proc, run, task) => hub().start(proc, (signal) => run(signal), task),
        cancelStream: (id) => hub().cancel(id),
        rerankModels: {
          get: () => readAppSettings(store.settings.get()).knowledgeRerank ?? {},
          set: (next) => store.settings.set({ knowledgeRerank: Object.keys(next).length ? (next as unknown as JsonObject) : null })
        },
        // The address policy is the tools' one (Settings → Tools: private addresses off by default).
        readWebPage: (url, signal) => readWebPage({ url }, { allowPrivate: context.tools?.toolSettings().allowPrivateAddresses ?? false, ...(signal ? { signal } : {}) }),
        rerank: async (model, query, documents, topN, signal) => rerankDocuments(await providers.credentials(model.providerId), model, query, documents, topN, signal ? { signal } : {})
      })
      const evals = new KnowledgeEvalsRepository(store.db)
      evals.repairInterrupted()
      context.knowledge = knowledge
      context.knowledgeEvals = new EvalService({
        evals,
        knowledge,
        async complete(model, system, user, signal) {
          const runtime = await providers.runtime(model.providerId)
          if (!runtime.chat) throw new Error(`${model.providerId} does not offer chat.`)
          const request: ChatRequest = { model: model.modelId, stream: true, messages: [{ role: 'system', content: system }, { role: 'user', content: user }] }
          let text = ''
          for await (const event of runtime.chat(request, { signal })) {
            if (event.type === 'text') text += event.data
            if (event.type === 'error') throw new Error(event.data.message)
          }
          return text
        }
      })
      context.chat?.useKnowledge(replyContextHook(knowledge), {
        check: (kbIds) => kbIds.forEach((id) => knowledge.repo.require(id)),
        attach: (conversationId, kbIds) => knowledge.repo.setAttached({ kind: 'conversation', id: conversationId }, kbIds)
      })
      knowledge.resume()
    }
  }
}
