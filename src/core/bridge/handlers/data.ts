import type { Contract } from '../../../shared/bridge/contract'
import type { AppSettings } from '../../../shared/data/app-settings'
import { AppErrorException } from '../../../shared/errors/app-error'
import type { Implementation } from '../router'
import type { CoreContext } from '../../context'
import { listBackups, type Store } from '../../store'
import { parseExportFile } from '../../store/export-import'
import { notFound } from '../../store/errors'

type DataHandlers = Pick<Implementation<Contract>, Extract<keyof Contract, `data.${string}`>>

/** The store, or a clear error while start-up has not opened it (or failed to). */
export function requireStore(ctx: CoreContext): Store {
  if (ctx.store) return ctx.store
  const state = ctx.init.state
  throw new AppErrorException({
    errorType: 'DataNotReady',
    status: 503,
    message:
      state.phase === 'error'
        ? `The local data could not be opened: ${state.detail ?? 'unknown reason'}. Fix that, then choose Retry.`
        : 'The local data is still opening. Try again in a moment.'
  })
}

const found = <T>(value: T | undefined, what: string, id: string): T => {
  if (value === undefined) throw notFound(what, id)
  return value
}

export function dataHandlers(ctx: CoreContext): DataHandlers {
  // Every handler runs inside guard(): SQLite failures become messages that name the fix.
  const use = <T>(fn: (store: Store) => T): T => {
    const store = requireStore(ctx)
    return store.guard(() => fn(store))
  }
  return {
    'data.agents.list': () => use((s) => s.agents.list()),
    'data.agents.get': ({ id }) => use((s) => s.agents.require(id)),
    'data.agents.create': (input) => use((s) => s.agents.create(input)),
    'data.agents.update': ({ id, patch }) => use((s) => s.agents.update(id, patch)),
    'data.agents.delete': ({ id }) => use((s) => ({ deleted: s.agents.delete(id) })),

    'data.conversations.list': ({ agentId }) => use((s) => s.conversations.list({ agentId })),
    'data.conversations.get': ({ id }) => use((s) => s.conversations.require(id)),
    'data.conversations.create': (input) => use((s) => s.conversations.create(input)),
    'data.conversations.update': ({ id, patch }) => use((s) => s.conversations.update(id, patch)),
    'data.conversations.delete': ({ id }) => use((s) => ({ deleted: s.conversations.delete(id) })),

    'data.topics.list': ({ conversationId }) => use((s) => s.conversations.listTopics(conversationId)),
    'data.topics.create': ({ conversationId, title }) => use((s) => s.conversations.createTopic(conversationId, title)),
    'data.topics.rename': ({ id, title }) => use((s) => s.conversations.renameTopic(id, title)),
    'data.topics.delete': ({ id }) => use((s) => ({ deleted: s.conversations.deleteTopic(id) })),

    'data.messages.page': ({ conversationId, limit, before }) => use((s) => s.messages.page(conversationId, { limit, before })),
    'data.messages.get': ({ id }) => use((s) => s.messages.require(id)),
    'data.messages.update': ({ id, patch }) => use((s) => s.messages.update(id, patch)),
    'data.messages.delete': ({ id }) => use((s) => ({ deleted: s.messages.delete(id) })),

    'data.search': ({ query, scope, limit }) => use((s) => s.search.search(query, scope ?? { kind: 'all' }, { limit })),

    'data.files.list': () => use((s) => s.files.list()),
    'data.files.get': ({ id }) => use((s) => found(s.files.get(id), 'File', id)),

    'data.images.list': ({ limit }) => use((s) => s.images.list({ limit })),
    'data.images.get': ({ id }) => use((s) => found(s.images.get(id), 'Image generation', id)),
    'data.images.delete': ({ id }) => use((s) => ({ deleted: s.images.delete(id) })),

    'data.providers.list': () => use((s) => s.providers.list()),
    'data.providers.get': ({ providerId }) => use((s) => s.providers.get(providerId)),
    'data.providers.update': ({ providerId, patch }) => use((s) => s.providers.update(providerId, patch)),
    'data.providers.setModelEnabled': ({ providerId, modelId, enabled }) => use((s) => s.providers.setModelEnabled(providerId, modelId, enabled)),

    'data.usage.list': (filter) => use((s) => s.usage.list(filter)),
    'data.usage.summary': ({ group, ...filter }) => use((s) => s.usage.summary(group, filter)),

    'data.settings.get': () => use((s) => s.settings.get()),
    'data.settings.set': ({ patch }) => use((s) => s.settings.set(patch as AppSettings)),

    'data.export': () =>
      use((s) => {
        const file = s.export(ctx.version)
        const knowledgeBases = ctx.knowledge?.exportBases()
        if (knowledgeBases?.length) file.data.knowledgeBases = knowledgeBases
        const day = new Date(file.exportedAt).toISOString().slice(0, 10)
        return { fileName: `switchboard-export-${day}.json`, json: JSON.stringify(file) }
      }),
    'data.import': ({ json }) =>
      use(async (s) => {
        const report = s.import(json)
        // Knowledge bases come after the rest (their attachments name agents the import just added).
        await ctx.knowledge?.importBases(parseExportFile(json).data.knowledgeBases ?? [])
        return report
      }),
    'data.backups.list': () => use((s) => listBackups(s.dataDir).map(({ at, schemaVersion, reason }) => ({ at, schemaVersion, reason })))
  }
}
