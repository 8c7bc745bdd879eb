import { existsSync } from 'node:fs'
import type { Contract } from '../../../shared/bridge/contract'
import { AppErrorException } from '../../../shared/errors/app-error'
import { needs } from '../not-ready'
import { importFile } from '../../store/import-file'
import { exportToFile } from '../../store/export-to-file'
import { newTransfer, removeTransfer, transferPath } from '../../store/transfers'
import type { Implementation } from '../router'
import type { StreamHub } from '../stream-hub'
import type { CoreContext } from '../../context'
import { listBackups, type Store } from '../../store'
import type { DamagedRow } from '../../store/export-import'
import { exportSelection } from '../../store/export-selection'
import { backupSummary, DataFolderService } from '../../services/data-folder-service'
import { AgentsService } from '../../services/agents-service'
import { writeFileSync } from 'node:fs'
import { PRIVATE_FILE_MODE } from '../../files/private-files'
import { clientReach } from '../../security/client-policy'
import { recheckRestoredSettings } from '../../security/imported-settings'

type DataHandlers = Pick<Implementation<Contract>, Extract<keyof Contract, `data.${string}`>>

/** The store, or a clear error while start-up has not opened it (or failed to). */
export const requireStore = (ctx: CoreContext): Store => needs(ctx, 'store', 'Your data')()

const pathsNotInBrowser = () =>
  new AppErrorException({ errorType: 'ValidationError', status: 400, message: 'In browser mode, upload the file instead of giving a path on the server.' })

/** The name an export proposes: the app's and the day's. */
const exportFileName = (at = Date.now()) => `switchboard-export-${new Date(at).toISOString().slice(0, 10)}.json`

/** The file an import reads: a path (desktop, tests) or a browser-mode upload. */
function transferSource(ctx: CoreContext, input: { path?: string; transferId?: string }): string {
  if (input.path && input.transferId) throw new AppErrorException({ errorType: 'ValidationError', status: 400, message: 'Give either a path or a transferId, not both.' })
  if (input.path) {
    if (ctx.mode === 'browser') throw pathsNotInBrowser()
    return input.path
  }
  const path = input.transferId ? transferPath(ctx.dataDir, input.transferId) : undefined
  if (!path) throw new AppErrorException({ errorType: 'ValidationError', status: 400, message: 'Choose a file to import.' })
  return path
}

/**
 * Runs a long job that reports progress and turns it into a stream: the latest progress at
 * most every 100 ms (a 100k-row import reports per row), then the job's result.
 */
async function* withProgress<P, T>(run: (onProgress: (progress: P) => void) => Promise<T>, done: () => void): AsyncGenerator<P, T> {
  let latest: P | undefined
  let finished = false
  let wake: (() => void) | undefined
  const job = run((progress) => void (latest = progress)).finally(() => {
    finished = true
    wake?.()
  })
  job.catch(() => undefined)
  try {
    while (!finished) {
      await new Promise<void>((resolve) => {
        wake = resolve
        setTimeout(resolve, 100).unref?.()
      })
      if (latest !== undefined) {
        const progress = latest
        latest = undefined
        yield progress
      }
    }
    return await job
  } finally {
    done()
  }
}

/** Background work that writes the store: replies (competition columns too), image tasks, indexing. Pulls do not. */
const STORE_WRITERS = ['chat', 'image', 'knowledge'] as const
const STOP_WAIT_MS = 15_000

/**
 * Before a restore replaces the database, whatever is writing to it is stopped and has ended:
 * a reply streaming into the old data would otherwise write into the restored file, or be lost.
 * Stopped replies are saved as stopped, so the safety copy made next holds them.
 */
async function stopStoreWriters(tasks: Pick<StreamHub, 'tasks' | 'cancel' | 'settled'>): Promise<void> {
  const running = STORE_WRITERS.flatMap((kind) => tasks.tasks(kind))
  if (running.length === 0) return
  for (const task of running) tasks.cancel(task.id)
  let timer: NodeJS.Timeout | undefined
  const stopped = await Promise.race([
    Promise.all(running.map((t) => tasks.settled(t.id))).then(() => true),
    new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), STOP_WAIT_MS)))
  ])
  clearTimeout(timer)
  if (!stopped) throw new AppErrorException({ errorType: 'ImportBusy', status: 409, message: 'A reply or an indexing run did not stop in time; nothing was restored. Try again in a moment.' })
}

export function dataHandlers(ctx: CoreContext, tasks: Pick<StreamHub, 'tasks' | 'cancel' | 'settled'>): DataHandlers {
  let importing = false
  let restoring = false
  const agentsOf = (store: Store) => new AgentsService({ store, dataDir: ctx.dataDir, activeConversations: () => new Set(tasks.tasks('chat').map((t) => t.meta.conversationId)) })
  const folder = () => new DataFolderService({ store: requireStore(ctx), dataDir: ctx.dataDir, mode: ctx.mode })
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
    'data.agents.delete': ({ id }) => use((s) => agentsOf(s).delete(id)),

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

    'data.importFile': (input, { signal }) => {
      const store = requireStore(ctx)
      const path = transferSource(ctx, input)
      if (importing) throw new AppErrorException({ errorType: 'ImportBusy', status: 409, message: 'Another import is running; wait for it to finish or cancel it.' })
      importing = true
      return withProgress(
        (onProgress) =>
          store.guard(() =>
            importFile(store.db, path, {
              dryRun: input.dryRun,
              applyEndpoints: input.applyEndpoints,
              reach: clientReach(ctx),
              signal,
              onProgress,
              // Knowledge bases come after the rest (their attachments name agents the import just added).
              onKnowledgeBases: async (bases) => void (await ctx.knowledge?.importBases(bases))
            })
          ),
        () => {
          importing = false
          // The import (or its undo) wrote settings rows without the repository.
          store.settings.invalidate()
          // An upload is read by one import; a preview keeps it for the real run (old ones are swept).
          if (!input.dryRun) removeTransfer(ctx.dataDir, input.transferId)
        }
      )
    },
    'data.choosePath': async ({ purpose }) => {
      if (!ctx.fileDialog) throw new AppErrorException({ errorType: 'ValidationError', status: 400, message: 'Only the desktop app has a file dialog; in browser mode the page uploads and downloads the file.' })
      const path = await ctx.fileDialog.choose(purpose, exportFileName())
      return path ? { path } : null
    },
    'data.exportFile': (input, { signal }) => {
      const store = requireStore(ctx)
      const fileName = exportFileName()
      if (input.path && ctx.mode === 'browser') throw pathsNotInBrowser()
      // Never a way to overwrite an arbitrary file: a new .json file only.
      if (input.path && (!input.path.toLowerCase().endsWith('.json') || existsSync(input.path)))
        throw new AppErrorException({ errorType: 'ValidationError', status: 400, message: 'Choose a new file name ending in .json; an existing file is never overwritten.' })
      const transfer = input.path ? undefined : newTransfer(ctx.dataDir)
      const target = input.path ?? transfer!.path
      return withProgress(
        async (onProgress) => {
          const knowledge = ctx.knowledge
          const result = await exportToFile(store.path, target, ctx.version, { signal, onProgress: (p) => onProgress({ phase: 'exporting', ...p }), ...(knowledge ? { knowledgeBases: () => knowledge.exportBasesOneByOne() } : {}) })
          return { ...(input.path ? { path: input.path } : { transferId: transfer!.id }), fileName, ...result }
        },
        () => undefined
      )
    },
    'data.backups.list': () => use((s) => listBackups(s.dataDir).map(backupSummary)),
    'data.exportSelected': ({ conversationIds, agentIds }) =>
      use((s) => {
        const damaged: DamagedRow[] = []
        const file = exportSelection(s.db, ctx.version, { conversationIds, agentIds }, damaged)
        const json = JSON.stringify(file)
        const fileName = `switchboard-export-${new Date(file.exportedAt).toISOString().slice(0, 10)}-selection.json`
        const bytes = Buffer.byteLength(json)
        // Browser mode: never one big socket frame; the page downloads it like a full export.
        if (ctx.mode !== 'browser') return { fileName, bytes, json, damaged }
        const transfer = newTransfer(ctx.dataDir)
        writeFileSync(transfer.path, json, { mode: PRIVATE_FILE_MODE })
        return { fileName, bytes, transferId: transfer.id, damaged }
      }),
    'data.backups.create': () => folder().backupNow(),
    'data.backups.restore': async ({ at }) => {
      if (restoring || importing) throw new AppErrorException({ errorType: 'ImportBusy', status: 409, message: 'An import or restore is running; wait for it to finish.' })
      restoring = true
      try {
        await stopStoreWriters(tasks)
        const settingsBefore = requireStore(ctx).settings.get()
        const result = await folder().restore(at)
        // A browser-mode client restores through the same settings policy as an import.
        recheckRestoredSettings(requireStore(ctx).settings, settingsBefore, clientReach(ctx))
        // The restored data may hold files that were waiting to be indexed: index them now, as a start-up would.
        ctx.knowledge?.resume()
        return result
      } finally {
        restoring = false
      }
    },
    'data.folder.info': () => folder().info(),
    'data.folder.open': async () => {
      await folder().open()
      return { opened: true as const }
    },
    'data.folder.clean': () => folder().clean()
  }
}
