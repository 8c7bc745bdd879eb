import { existsSync, writeFileSync } from 'node:fs'
import type { DataTransferProgress } from '../../shared/bridge/procedures/data'
import { AppErrorException } from '../../shared/errors/app-error'
import { settledWithin } from '../../shared/utils/settled-within'
import type { StreamHub } from '../bridge/stream-hub'
import { PRIVATE_FILE_MODE } from '../files/private-files'
import type { KnowledgeService } from '../knowledge/knowledge-service'
import type { DamagedRow } from '../store/export-import'
import { exportSelection } from '../store/export-selection'
import { exportToFile } from '../store/export-to-file'
import { importFile } from '../store/import-file'
import { RESTORE_WAIT_MS, type Store } from '../store/store'
import { newTransfer, removeTransfer, transferPath } from '../store/transfers'
import type { DataFolderService } from './data-folder-service'
import type { ClientReach } from '../security/client-policy'
import { recheckRestoredSettings } from '../security/imported-settings'

export interface DataTransferDeps {
  store: Store
  dataDir: string
  mode: 'desktop' | 'browser' | 'test'
  version: string
  knowledge: KnowledgeService
  folder: DataFolderService
  /** Who calls: an import's and a restore's settings pass the policy of the procedures that own them. */
  reach: ClientReach
  /** Background work of the hub: a restore stops what writes the store first. */
  tasks: Pick<StreamHub, 'tasks' | 'cancel' | 'settled'>
}

export const pathsNotInBrowser = () =>
  new AppErrorException({ errorType: 'ValidationError', status: 400, message: 'In browser mode, upload the file instead of giving a path on the server.' })

/** The name an export proposes: the app's and the day's. */
export const exportFileName = (at = Date.now()) => `switchboard-export-${new Date(at).toISOString().slice(0, 10)}.json`

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

/**
 * Before a restore replaces the database, whatever is writing to it is stopped and has ended:
 * a reply streaming into the old data would otherwise write into the restored file, or be lost.
 * Stopped replies are saved as stopped, so the safety copy made next holds them.
 */
async function stopStoreWriters(tasks: Pick<StreamHub, 'tasks' | 'cancel' | 'settled'>): Promise<void> {
  const running = STORE_WRITERS.flatMap((kind) => tasks.tasks(kind))
  if (running.length === 0) return
  for (const task of running) tasks.cancel(task.id)
  if (!(await settledWithin(Promise.all(running.map((t) => tasks.settled(t.id))), RESTORE_WAIT_MS))) throw new AppErrorException({ errorType: 'ImportBusy', status: 409, message: 'A reply or an indexing run did not stop in time; nothing was restored. Try again in a moment.' })
}

/**
 * Import, export and restore of the whole data: one at a time (an import and a restore never
 * overlap), with progress as a stream, and knowledge bases carried alongside the rows.
 */
export class DataTransferService {
  private importing = false
  private restoring = false

  constructor(private readonly deps: DataTransferDeps) {}

  /** The file an import reads: a path (desktop, tests) or a browser-mode upload. */
  private transferSource(input: { path?: string; transferId?: string }): string {
    if (input.path && input.transferId) throw new AppErrorException({ errorType: 'ValidationError', status: 400, message: 'Give either a path or a transferId, not both.' })
    if (input.path) {
      if (this.deps.mode === 'browser') throw pathsNotInBrowser()
      return input.path
    }
    const path = input.transferId ? transferPath(this.deps.dataDir, input.transferId) : undefined
    if (!path) throw new AppErrorException({ errorType: 'ValidationError', status: 400, message: 'Choose a file to import.' })
    return path
  }

  importFile(input: { path?: string; transferId?: string; dryRun?: boolean; applyEndpoints?: boolean }, signal: AbortSignal) {
    const { store, knowledge } = this.deps
    const path = this.transferSource(input)
    if (this.importing) throw new AppErrorException({ errorType: 'ImportBusy', status: 409, message: 'Another import is running; wait for it to finish or cancel it.' })
    this.importing = true
    return withProgress<DataTransferProgress, Awaited<ReturnType<typeof importFile>>>(
      (onProgress) =>
        store.guard(() =>
          importFile(store.db, path, {
            dryRun: input.dryRun,
            applyEndpoints: input.applyEndpoints,
            reach: this.deps.reach,
            signal,
            onProgress,
            // Knowledge bases come after the rest (their attachments name agents the import just added).
            onKnowledgeBases: async (bases) => void (await knowledge.importBases(bases))
          })
        ),
      () => {
        this.importing = false
        // The import (or its undo) wrote settings rows without the repository.
        store.settings.invalidate()
        // An upload is read by one import; a preview keeps it for the real run (old ones are swept).
        if (!input.dryRun) removeTransfer(this.deps.dataDir, input.transferId)
      }
    )
  }

  exportFile(input: { path?: string }, signal: AbortSignal) {
    const { store, knowledge } = this.deps
    const fileName = exportFileName()
    if (input.path && this.deps.mode === 'browser') throw pathsNotInBrowser()
    // Never a way to overwrite an arbitrary file: a new .json file only.
    if (input.path && (!input.path.toLowerCase().endsWith('.json') || existsSync(input.path)))
      throw new AppErrorException({ errorType: 'ValidationError', status: 400, message: 'Choose a new file name ending in .json; an existing file is never overwritten.' })
    const transfer = input.path ? undefined : newTransfer(this.deps.dataDir)
    const target = input.path ?? transfer!.path
    return withProgress<DataTransferProgress, { path?: string; transferId?: string; fileName: string; bytes: number; damaged: DamagedRow[] }>(
      async (onProgress) => {
        const result = await exportToFile(store.path, target, this.deps.version, { signal, onProgress: (p) => onProgress({ phase: 'exporting', ...p }), knowledgeBases: () => knowledge.exportBasesOneByOne() })
        return { ...(input.path ? { path: input.path } : { transferId: transfer!.id }), fileName, ...result }
      },
      () => undefined
    )
  }

  exportSelected(input: { conversationIds?: string[]; agentIds?: string[] }) {
    const { store } = this.deps
    return store.guard(() => {
      const damaged: DamagedRow[] = []
      const file = exportSelection(store.db, this.deps.version, { conversationIds: input.conversationIds, agentIds: input.agentIds }, damaged)
      const json = JSON.stringify(file)
      const fileName = `switchboard-export-${new Date(file.exportedAt).toISOString().slice(0, 10)}-selection.json`
      const bytes = Buffer.byteLength(json)
      // Browser mode: never one big socket frame; the page downloads it like a full export.
      if (this.deps.mode !== 'browser') return { fileName, bytes, json, damaged }
      const transfer = newTransfer(this.deps.dataDir)
      writeFileSync(transfer.path, json, { mode: PRIVATE_FILE_MODE })
      return { fileName, bytes, transferId: transfer.id, damaged }
    })
  }

  async restore(at: number) {
    if (this.restoring || this.importing) throw new AppErrorException({ errorType: 'ImportBusy', status: 409, message: 'An import or restore is running; wait for it to finish.' })
    this.restoring = true
    try {
      await stopStoreWriters(this.deps.tasks)
      const settingsBefore = this.deps.store.settings.get()
      const result = await this.deps.folder.restore(at)
      // A browser-mode client restores through the same settings policy as an import.
      recheckRestoredSettings(this.deps.store.settings, settingsBefore, this.deps.reach)
      // The restored data may hold files that were waiting to be indexed: index them now, as a start-up would.
      this.deps.knowledge.resume()
      return result
    } finally {
      this.restoring = false
    }
  }
}
