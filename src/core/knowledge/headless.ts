import { StreamHub } from '../bridge/stream-hub'
import type { ProviderRuntime } from '../runtime/types'
import { embeddingsOutput } from '../embeddings/embedding-service'
import type { Store } from '../store'
import { KnowledgeEvalsRepository } from '../store/repositories/knowledge-evals'
import { KnowledgeRepository } from '../store/repositories/knowledge'
import { EvalService } from './eval-service'
import { KnowledgeService, type KnowledgeServiceDeps } from './knowledge-service'

/**
 * The knowledge service without the app around it (the CLI, the crash test): an open store, a way
 * to get a provider's runtime, and a hub of its own for the indexing tasks.
 */
export function headlessKnowledge(
  store: Store,
  runtimeFor: (providerId: string) => Promise<ProviderRuntime>,
  extra: Partial<Pick<KnowledgeServiceDeps, 'batchSize' | 'afterBatch' | 'scaleWaitMs'>> = {}
): { knowledge: KnowledgeService; evals: EvalService; hub: StreamHub } {
  const hub = new StreamHub({ retainMs: 1000 })
  const knowledge = new KnowledgeService({
    repo: new KnowledgeRepository(store.db),
    dataDir: store.dataDir,
    embed: (providerId, modelId) => async (texts, options) => {
      const runtime = await runtimeFor(providerId)
      if (!runtime.embeddings) throw new Error(`${providerId} does not offer embeddings.`)
      const result = await runtime.embeddings({ model: modelId, input: texts }, options)
      return embeddingsOutput(result.embeddings, texts.length, providerId, result.usage)
    },
    startStream: (proc, run, task) => hub.start(proc, (signal) => run(signal), task),
    cancelStream: (id) => hub.cancel(id),
    ...extra
  })
  const evals = new EvalService({ evals: new KnowledgeEvalsRepository(store.db), knowledge })
  return { knowledge, evals, hub }
}
