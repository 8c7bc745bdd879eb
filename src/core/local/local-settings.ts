import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { LOCAL_SERVER_KINDS, type LocalServerKind } from '../../shared/local/local-servers'
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../files/private-files'
import { logger } from '../log/logger'

/**
 * User-set base URLs of the local servers, in one small JSON file in the data folder
 * (no secrets: a local server needs no key). Written atomically so a crash never leaves
 * half a file.
 */
export class LocalSettings {
  private urls: Partial<Record<LocalServerKind, string>> = {}

  constructor(private readonly file?: string) {
    if (!file) return
    try {
      const parsed = JSON.parse(readFileSync(file, 'utf8')) as { baseUrls?: Record<string, unknown> }
      for (const kind of LOCAL_SERVER_KINDS) {
        const value = parsed.baseUrls?.[kind]
        if (typeof value === 'string' && value) this.urls[kind] = value
      }
    } catch (error) {
      // No file yet, or unreadable: start from the defaults (an unreadable one is logged).
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') logger.warn('local', `reading ${file} failed; using the default server addresses`, error)
    }
  }

  get(kind: LocalServerKind): string | undefined {
    return this.urls[kind]
  }

  set(kind: LocalServerKind, baseUrl: string | undefined): void {
    if (baseUrl) this.urls[kind] = baseUrl
    else delete this.urls[kind]
    if (!this.file) return
    mkdirSync(dirname(this.file), { recursive: true, mode: PRIVATE_DIR_MODE })
    const tmp = `${this.file}.tmp`
    writeFileSync(tmp, `${JSON.stringify({ baseUrls: this.urls }, null, 2)}\n`, { mode: PRIVATE_FILE_MODE })
    renameSync(tmp, this.file)
  }
}
