import { StreamHub } from '../bridge/stream-hub'
import type { ProviderRuntime } from '../runtime/types'
import { EmbeddingService } from '../embeddings/embedding-service'
import { createModelCaller } from '../caller/create-caller'
import type { Store } from '../store'
import { KnowledgeEvalsRepository } from '../store/repositories/knowledge-evals'
import { KnowledgeRepository } from '../store/repositories/knowledge'
import { EvalService } from './eval-service'
import { KnowledgeService, type KnowledgeServiceDeps } from './knowledge-service'

/**
 * The knowledge service without the app around it (the CLI, the crash test): an open store, a way
 * to get a provider's runtime, and a hub of its own for the indexing tasks. Its embeddings go
 * through a caller of their own, priced by the catalogue and written to the store's usage log
 * like the app's, so the Usage page shows what a CLI indexing run cost too.
 */
export function headlessKnowledge(
  store: Store,
  runtimeFor: (providerId: string) => Promise<ProviderRuntime>,
  extra: Partial<Pick<KnowledgeServiceDeps, 'batchSize' | 'afterBatch' | 'scaleWaitMs'>> = {}
): { knowledge: KnowledgeService; evals: EvalService; hub: StreamHub } {
  const hub = new StreamHub({ retainMs: 1000 })
  const caller = createModelCaller({ runtimeFor, usage: store.usage, settings: store.settings })
  const embeddings = new EmbeddingService({ caller })
  const knowledge = new KnowledgeService({
    repo: new KnowledgeRepository(store.db),
    dataDir: store.dataDir,
    embed: (providerId, modelId, scene) => (texts, options) => embeddings.create({ providerId, modelId, input: texts, scene }, options),
    startStream: (proc, run, task) => hub.start(proc, (signal) => run(signal), task),
    cancelStream: (id) => hub.cancel(id),
    ...extra
  })
  const evals = new EvalService({ evals: new KnowledgeEvalsRepository(store.db), knowledge })
  return { knowledge, evals, hub }
}
