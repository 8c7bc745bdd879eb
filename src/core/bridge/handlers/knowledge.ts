import type { Contract } from '../../../shared/bridge/contract'
import type { CoreContext } from '../../context'
import { needs } from '../not-ready'
import type { Implementation } from '../router'

type KnowledgeHandlers = Pick<Implementation<Contract>, Extract<keyof Contract, `knowledge.${string}`>>

export function knowledgeHandlers(ctx: CoreContext): KnowledgeHandlers {
  const kb = needs(ctx, 'knowledge', 'Knowledge bases')
  const ev = needs(ctx, 'knowledgeEvals', 'Knowledge-base evaluation')
  const evals = () => ev().deps.evals
  return {
    'knowledge.list': () => kb().list(),
    'knowledge.create': (input) => kb().create(input),
    'knowledge.update': ({ id, ...patch }) => kb().update(id, patch),
    'knowledge.delete': ({ id }) => kb().delete(id),
    'knowledge.setRerank': ({ kbId, rerank }) => kb().setRerankModel(kbId, rerank ?? undefined) ?? null,
    'knowledge.files': ({ kbId }) => kb().files(kbId),
    'knowledge.addPaths': ({ kbId, paths, include, exclude }) => kb().addPaths(kbId, paths, { ...(include ? { include } : {}), ...(exclude ? { exclude } : {}) }),
    'knowledge.addUrl': ({ kbId, url }) => kb().addUrl(kbId, url),
    'knowledge.upload': ({ kbId, name, dataBase64 }) => kb().addBytes(kbId, name, Buffer.from(dataBase64, 'base64')),
    'knowledge.removeFile': ({ fileId }) => kb().removeFile(fileId),
    'knowledge.retryFile': ({ fileId }) => kb().retry(fileId),
    'knowledge.search': (input, c) => kb().search(input, c.signal),
    'knowledge.attached': ({ owner }) => kb().repo.attached(owner),
    'knowledge.attach': ({ owner, kbIds }) => kb().repo.setAttached(owner, kbIds),
    'knowledge.sources': ({ messageIds }) => kb().repo.sources(messageIds),
    'knowledge.datasets': () => evals().datasets(),
    'knowledge.importDataset': (input) => ev().importDataset(input),
    'knowledge.datasetRecords': ({ datasetId }) => evals().records(datasetId),
    'knowledge.updateRecord': ({ id, ...patch }) => evals().updateRecord(id, patch),
    'knowledge.deleteRecord': ({ id }) => evals().deleteRecord(id),
    'knowledge.deleteDataset': ({ datasetId }) => evals().deleteDataset(datasetId),
    'knowledge.runEval': (input, c) => ev().run(input, c.signal),
    'knowledge.evals': ({ knowledgeBaseId }) => evals().evals(knowledgeBaseId),
    'knowledge.evalRecords': ({ evalId }) => evals().evalRecords(evalId)
  }
}
