import { readFileSync, renameSync } from 'node:fs'
import { join } from 'node:path'
import { localServerUrlSchema, type SettingsChange } from '../../shared/data/app-settings'
import { LOCAL_SERVER_KINDS, type LocalServerKind } from '../../shared/local/local-servers'
import { AppErrorException } from '../../shared/errors/app-error'
import type { FeatureSettingsStore } from '../store/repositories/settings'
import { logger } from '../log/logger'

/**
 * User-set base URLs of the local servers, kept in the settings table under `ollama`,
 * `lmstudio`, `vllm`, `xinference` (device-local: sync/tables.ts; decision 158). The local
 * feature stands before the store opens (root.ts), so the table is read at each use, as the
 * model library reads the keychain: until start-up has built the graph on the store, every
 * server is looked for at its default address, and setting one answers not ready (there is
 * nowhere to keep it yet).
 */
export class LocalSettings {
  constructor(
    private readonly store: () => FeatureSettingsStore | undefined = () => undefined,
    /** Why there is nowhere to keep an address now (the core's own words: still starting, or why start-up failed). */
    private readonly unavailable: () => Error = () =>
      new AppErrorException({ errorType: 'DataNotReady', status: 503, message: 'The local server addresses are kept with your data, which is still opening; try again in a moment.' })
  ) {}

  get(kind: LocalServerKind): string | undefined {
    return this.store()?.features()[kind]
  }

  set(kind: LocalServerKind, baseUrl: string | undefined): void {
    const store = this.store()
    if (!store) throw this.unavailable()
    store.save({ [kind]: baseUrl ?? null })
  }
}

/** Where the addresses were kept before decision 158; renamed `.migrated` once copied. */
export const localServersFile = (dataDir: string): string => join(dataDir, 'local-servers.json')

/**
 * The one-time move of `local-servers.json` into the settings table, on each start-up that
 * finds the file: each address is checked as the file was read before (a non-empty string),
 * a bad one is left out and logged; only kinds the table does not hold yet are copied, so a
 * crash between the copy and the rename copies nothing twice and overwrites nothing the user
 * set since. The file is renamed, not deleted: an older version that a user goes back to
 * starts from its defaults instead, and the addresses are still there to read by hand. A file
 * that is not JSON is logged and renamed too (nothing in it can be used); one that cannot be
 * read is logged and left for the next start-up. Never throws: start-up goes on either way.
 */
export function migrateLocalServersFile(dataDir: string, store: FeatureSettingsStore): void {
  const file = localServersFile(dataDir)
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') logger.warn('local', `reading ${file} failed; its server addresses are not copied into the settings`, error)
    return
  }
  try {
    const change = addressesToCopy(file, text, store)
    if (Object.keys(change).length) store.save(change)
    renameSync(file, `${file}.migrated`)
  } catch (error) {
    logger.warn('local', `moving ${file} into the settings failed; it is tried again at the next start-up`, error)
  }
}

/** The file's valid addresses of the kinds the table does not hold yet. */
function addressesToCopy(file: string, text: string, store: FeatureSettingsStore): SettingsChange {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    logger.warn('local', `${file} is not JSON; its server addresses are left out`, error)
    return {}
  }
  const baseUrls = (parsed as { baseUrls?: unknown } | null)?.baseUrls
  if (!baseUrls || typeof baseUrls !== 'object') return {}
  const stored = store.features()
  const change: SettingsChange = {}
  for (const kind of LOCAL_SERVER_KINDS) {
    const value = (baseUrls as Record<string, unknown>)[kind]
    if (value === undefined || stored[kind] !== undefined) continue
    const checked = localServerUrlSchema.safeParse(value)
    if (checked.success) change[kind] = checked.data
    else logger.warn('local', `${file}: the ${kind} address is not a non-empty string; it is left out`)
  }
  return change
}
