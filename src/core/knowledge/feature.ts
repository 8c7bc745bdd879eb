import type { Feature, ProceduresOf } from '../feature'
import type { Store } from '../store'
import type { StreamHub } from '../bridge/stream-hub'
import type { ProviderService } from '../providers/provider-service'
import type { ModelCaller } from '../caller/model-caller'
import type { EmbeddingService } from '../embeddings/embedding-service'
import type { ToolService } from '../tools/tool-service'
import { readWebPage } from '../tools/builtin/read-web-page'
import { KnowledgeRepository } from '../store/repositories/knowledge'
import { KnowledgeEvalsRepository } from '../store/repositories/knowledge-evals'
import { KnowledgeService } from './knowledge-service'
import { EvalService } from './eval-service'
import { rerankDocuments } from './rerank'
import { knowledgeHandlers } from './handlers'

interface Deps {
  env: { dataDir: string }
  store: Store
  hub: StreamHub
  providers: ProviderService
  caller: ModelCaller
  embeddings: EmbeddingService
  tools: ToolService
}

/** Knowledge bases (indexing, retrieval) and their evaluations. */
export const knowledgeFeature: Feature<Deps, { knowledge: KnowledgeService; knowledgeEvals: EvalService }, ProceduresOf<'knowledge'>> = {
  create: ({ env, store, hub, providers, caller, embeddings, tools }) => {
    const knowledge = new KnowledgeService({
      repo: new KnowledgeRepository(store.db),
      dataDir: env.dataDir,
      embed: (providerId, modelId, scene) => (texts, options) => embeddings.create({ providerId, modelId, input: texts, scene }, options),
      startStream: (proc, run, task) => hub.start(proc, (signal) => run(signal), task),
      cancelStream: (id) => hub.cancel(id),
      rerankModels: {
        get: () => store.settings.app().knowledgeRerank ?? {},
        set: (next) => store.settings.save({ knowledgeRerank: Object.keys(next).length ? next : null })
      },
      // The address policy is the tools' one (Settings → Tools: private addresses off by default).
      readWebPage: (url, signal) => readWebPage({ url }, { allowPrivate: tools.toolSettings().allowPrivateAddresses, ...(signal ? { signal } : {}) }),
      // A rerank is a model call like the rest: priced by the catalogue when it has the model, and logged.
      rerank: async (model, query, documents, topN, signal) =>
        (
          await caller.call({
            kind: 'rerank',
            scene: 'Knowledge Base Search',
            target: model,
            ...(signal ? { signal } : {}),
            invoke: async ({ model: chosen, options }) => rerankDocuments(await providers.credentials(chosen.providerId), chosen, query, documents, topN, options.signal ? { signal: options.signal } : {}),
            measure: ({ usage }) => (usage?.totalTokens !== undefined ? { totalInputTokens: usage.totalTokens, inputTextTokens: usage.totalTokens, totalTokens: usage.totalTokens } : undefined)
          })
        ).result.scores
    })
    const evals = new KnowledgeEvalsRepository(store.db)
    evals.repairInterrupted()
    const knowledgeEvals = new EvalService({
      evals,
      knowledge,
      // The judge and the answers are model calls like any other: priced and in the usage log.
      complete: async (model, system, user, signal) =>
        (await caller.text({ target: model, scene: 'Knowledge Base Evaluation', messages: [{ role: 'system', content: system }, { role: 'user', content: user }], signal, clean: false })).text
    })
    return { knowledge, knowledgeEvals }
  },
  handlers: (use, env) => knowledgeHandlers(use('knowledge', 'Knowledge bases'), use('knowledgeEvals', 'Knowledge-base evaluation'), env),
  // Indexing a crash interrupted picks up again.
  start: ({ knowledge }) => knowledge.resume(),
  close: ({ knowledge }) => knowledge.close()
}
