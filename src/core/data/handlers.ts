import type { Contract } from '../../shared/bridge/contract'
import { AppErrorException } from '../../shared/errors/app-error'
import type { Implementation } from '../bridge/router'
import type { FeatureEnv } from '../feature'
import type { AgentsService } from './agents-service'
import { listBackups, type Store } from '../store'
import { backupSummary, type DataFolderService } from './data-folder-service'
import { exportFileName, type DataTransferService } from './data-transfer-service'

type DataHandlers = Pick<Implementation<Contract>, Extract<keyof Contract, `data.${string}`>>

/** The services the data procedures use, each a getter that throws the not-ready error. */
export interface DataParts {
  store: () => Store
  transfer: () => DataTransferService
  folder: () => DataFolderService
  agents: () => AgentsService
}

/** Rows of the store, agents with their rules, the data folder, and import/export (DataTransferService). */
export function dataHandlers({ store: requireStore, transfer, folder, agents }: DataParts, ctx: Pick<FeatureEnv, 'fileDialog'>): DataHandlers {
  // Every handler runs inside guard(): SQLite failures become messages that name the fix.
  const use = <T>(fn: (store: Store) => T): T => {
    const store = requireStore()
    return store.guard(() => fn(store))
  }

  return {
    'data.agents.list': () => use((s) => s.agents.list()),
    'data.agents.get': ({ id }) => use((s) => s.agents.require(id)),
    'data.agents.create': (input) => use((s) => s.agents.create(input)),
    'data.agents.update': ({ id, patch }) => use((s) => s.agents.update(id, patch)),
    'data.agents.delete': ({ id }) => use(() => agents().delete(id)),

    'data.conversations.list': ({ agentId }) => use((s) => s.conversations.list({ agentId })),
    'data.conversations.get': ({ id }) => use((s) => s.conversations.require(id)),
    'data.conversations.create': (input) => use((s) => s.conversations.create(input)),
    'data.conversations.update': ({ id, patch }) => use((s) => s.conversations.update(id, patch)),
    'data.conversations.delete': ({ id }) => use((s) => ({ deleted: s.conversations.delete(id) })),


    'data.messages.update': ({ id, patch }) => use((s) => s.messages.update(id, patch)),

    'data.search': ({ query, scope, limit, filters }) => use((s) => s.search.search(query, scope ?? { kind: 'all' }, { limit, filters })),


    'data.images.list': ({ limit }) => use((s) => s.images.list({ limit })),


    'data.usage.list': (filter) => use((s) => s.usage.list(filter)),
    'data.usage.summary': ({ group, ...filter }) => use((s) => s.usage.summary(group, filter)),

    'data.settings.get': () => use((s) => s.settings.app()),
    'data.settings.set': ({ patch }) => use((s) => (s.settings.set(patch), s.settings.app())),

    'data.importFile': (input, { signal }) => transfer().importFile(input, signal),
    'data.choosePath': async ({ purpose }) => {
      if (!ctx.fileDialog) throw new AppErrorException({ errorType: 'ValidationError', status: 400, message: 'Only the desktop app has a file dialog; in browser mode the page uploads and downloads the file.' })
      const path = await ctx.fileDialog.choose(purpose, exportFileName())
      return path ? { path } : null
    },
    'data.exportFile': (input, { signal }) => transfer().exportFile(input, signal),
    'data.backups.list': () => use((s) => listBackups(s.dataDir).map(backupSummary)),
    'data.exportSelected': (input) => transfer().exportSelected(input),
    'data.backups.create': () => folder().backupNow(),
    'data.backups.restore': ({ at }) => transfer().restore(at),
    'data.folder.info': () => folder().info(),
    'data.folder.open': async () => {
      await folder().open()
      return { opened: true as const }
    },
    'data.folder.clean': () => folder().clean()
  }
}
