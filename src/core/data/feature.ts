import type { Feature, ProceduresOf } from '../feature'
import type { Store } from '../store'
import type { StreamHub } from '../bridge/stream-hub'
import type { AccessPolicy } from '../bridge/session'
import type { KnowledgeService } from '../knowledge/knowledge-service'
import { clientReach } from '../security/client-policy'
import { AgentsService } from './agents-service'
import { DataFolderService } from './data-folder-service'
import { DataTransferService } from './data-transfer-service'
import { dataHandlers } from './handlers'

interface Deps {
  env: { version: string; mode: 'desktop' | 'browser' | 'test'; dataDir: string; access?: AccessPolicy | undefined }
  store: Store
  hub: StreamHub
  knowledge: KnowledgeService
}

/** The user's data: agents, the data folder and its backups, import and export. */
export const dataFeature: Feature<Deps, { agents: AgentsService; dataFolder: DataFolderService; dataTransfer: DataTransferService }, ProceduresOf<'data'>> = {
  create: ({ env, store, hub, knowledge }) => {
    const { dataDir, mode } = env
    const agents = new AgentsService({ store, dataDir, activeConversations: () => new Set(hub.tasks('chat').map((t) => t.meta.conversationId)) })
    const dataFolder = new DataFolderService({ store, dataDir, mode })
    const dataTransfer = new DataTransferService({ store, dataDir, mode, reach: clientReach(env), version: env.version, knowledge, folder: dataFolder, tasks: hub })
    return { agents, dataFolder, dataTransfer }
  },
  handlers: (use, env) =>
    dataHandlers({ store: use('store', 'Your data'), transfer: use('dataTransfer', 'Your data'), folder: use('dataFolder', 'Your data'), agents: use('agents', 'Your data') }, env)
}
