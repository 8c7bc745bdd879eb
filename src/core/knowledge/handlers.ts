import { existsSync, rmSync } from 'node:fs'
import type { Contract } from '../../shared/bridge/contract'
import { AppErrorException } from '../../shared/errors/app-error'
import { transferPath } from '../store/transfers'
import { refuseHostPaths, type CallerEnv } from '../security/client-policy'
import type { KnowledgeService } from './knowledge-service'
import type { EvalService } from './eval-service'
import type { Implementation } from '../bridge/router'

type KnowledgeHandlers = Pick<Implementation<Contract>, Extract<keyof Contract, `knowledge.${string}`>>

export function knowledgeHandlers(kb: () => KnowledgeService, ev: () => EvalService, ctx: CallerEnv & { dataDir: string }): KnowledgeHandlers {
  return {
    'knowledge.list': () => kb().list(),
    'knowledge.create': (input) => kb().create(input),
    'knowledge.update': ({ id, ...patch }) => kb().update(id, patch),
    'knowledge.delete': ({ id }) => kb().delete(id),
    'knowledge.setRerank': ({ kbId, rerank }) => kb().setRerankModel(kbId, rerank ?? undefined) ?? null,
    'knowledge.files': ({ kbId }) => kb().files(kbId),
    'knowledge.addPaths': ({ kbId, paths, include, exclude }) => {
      // Reading host files by path is for the person at the host; a browser uploads them.
      refuseHostPaths(ctx)
      return kb().addPaths(kbId, paths, { ...(include ? { include } : {}), ...(exclude ? { exclude } : {}) })
    },
    'knowledge.addUrl': ({ kbId, url }) => kb().addUrl(kbId, url),
    'knowledge.upload': async ({ kbId, name, transferId }) => {
      const path = transferPath(ctx.dataDir, transferId)
      if (!path || !existsSync(path)) throw new AppErrorException({ errorType: 'ValidationError', status: 400, message: 'The upload is no longer there; choose the file again.' })
      try {
        // Streamed from the transfer file into the data folder: a 200 MB file is never whole in memory here.
        return await kb().addFile(kbId, path, { name, source: `upload:${name}` })
      } finally {
        rmSync(path, { force: true })
      }
    },
    'knowledge.removeFile': ({ fileId }) => kb().removeFile(fileId),
    'knowledge.retryFile': ({ fileId }) => kb().retry(fileId),
    'knowledge.search': (input, c) => kb().search(input, c.signal),
    'knowledge.attached': ({ owner }) => kb().attached(owner),
    'knowledge.attach': ({ owner, kbIds }) => kb().setAttached(owner, kbIds),
    'knowledge.datasets': () => ev().datasets(),
    'knowledge.importDataset': (input) => ev().importDataset(input),
    'knowledge.datasetRecords': ({ datasetId }) => ev().records(datasetId),
    'knowledge.updateRecord': ({ id, ...patch }) => ev().updateRecord(id, patch),
    'knowledge.deleteRecord': ({ id }) => ev().deleteRecord(id),
    'knowledge.deleteDataset': ({ datasetId }) => ev().deleteDataset(datasetId),
    'knowledge.runEval': (input, c) => ev().run(input, c.signal),
    'knowledge.evals': ({ knowledgeBaseId }) => ev().evals(knowledgeBaseId),
    'knowledge.evalRecords': ({ evalId }) => ev().evalRecords(evalId)
  }
}
