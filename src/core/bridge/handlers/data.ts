import { existsSync, statSync } from 'node:fs'
import type { Contract } from '../../../shared/bridge/contract'
import { readAppSettings } from '../../../shared/data/app-settings'
import { AppErrorException } from '../../../shared/errors/app-error'
import { notReady } from '../not-ready'
import { importFile } from '../../store/import-file'
import { exportToFile } from '../../store/export-to-file'
import { newTransfer, transferPath } from '../../store/transfers'
import type { Implementation } from '../router'
import type { CoreContext } from '../../context'
import { listBackups, type Store } from '../../store'
import { parseExportFile } from '../../store/export-import'
import { inspectBackup } from '../../store/backup'
import type { DamagedRow } from '../../store/export-import'

type DataHandlers = Pick<Implementation<Contract>, Extract<keyof Contract, `data.${string}`>>

/** The store, or a clear error while start-up has not opened it (or failed to). */
export function requireStore(ctx: CoreContext): Store {
  if (ctx.store) return ctx.store
  throw notReady(ctx, 'Your data')
}

const pathsNotInBrowser = () =>
  new AppErrorException({ errorType: 'ValidationError', status: 400, message: 'In browser mode, upload the file instead of giving a path on the server.' })

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

export function dataHandlers(ctx: CoreContext): DataHandlers {
  let importing = false
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


    'data.messages.update': ({ id, patch }) => use((s) => s.messages.update(id, patch)),

    'data.search': ({ query, scope, limit, filters }) => use((s) => s.search.search(query, scope ?? { kind: 'all' }, { limit, filters })),


    'data.images.list': ({ limit }) => use((s) => s.images.list({ limit })),


    'data.usage.list': (filter) => use((s) => s.usage.list(filter)),
    'data.usage.summary': ({ group, ...filter }) => use((s) => s.usage.summary(group, filter)),

    'data.settings.get': () => use((s) => readAppSettings(s.settings.get())),
    'data.settings.set': ({ patch }) => use((s) => readAppSettings(s.settings.set(patch))),

    'data.export': () =>
      use((s) => {
        const damaged: DamagedRow[] = []
        const file = s.export(ctx.version, damaged)
        const knowledgeBases = ctx.knowledge?.exportBases()
        if (knowledgeBases?.length) file.data.knowledgeBases = knowledgeBases
        const day = new Date(file.exportedAt).toISOString().slice(0, 10)
        return { fileName: `switchboard-export-${day}.json`, json: JSON.stringify(file), damaged }
      }),
    'data.import': ({ json, dryRun, applyEndpoints }) =>
      use(async (s) => {
        const report = s.import(json, { dryRun, applyEndpoints })
        // Knowledge bases come after the rest (their attachments name agents the import just added).
        if (!dryRun) await ctx.knowledge?.importBases(parseExportFile(json).data.knowledgeBases ?? [])
        return report
      }),
    'data.importFile': (input, { signal }) => {
      const store = requireStore(ctx)
      const path = transferSource(ctx, input)
      if (importing) throw new AppErrorException({ errorType: 'ImportBusy', status: 409, message: 'Another import is running; wait for it to finish or cancel it.' })
      importing = true
      return withProgress(
        (onProgress) =>
          store.guard(() =>
            importFile(store.db, path, { dryRun: input.dryRun, applyEndpoints: input.applyEndpoints, signal, onProgress, ...(ctx.knowledge ? { importKnowledge: (bases) => ctx.knowledge!.importBases(bases) } : {}) })
          ),
        () => (importing = false)
      )
    },
    'data.exportFile': (input, { signal }) => {
      const store = requireStore(ctx)
      const day = new Date().toISOString().slice(0, 10)
      const fileName = `switchboard-export-${day}.json`
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
    'data.backups.list': () =>
      use((s) =>
        listBackups(s.dataDir).map(({ file, at, schemaVersion, reason }) => {
          const holds = inspectBackup(file)
          let size: number | undefined
          try {
            size = statSync(file).size
          } catch {
            size = undefined // removed by the retention rules meanwhile
          }
          return { at, schemaVersion, reason, ...(size !== undefined ? { size } : {}), ...(holds ? { holds } : {}) }
        })
      )
  }
}
