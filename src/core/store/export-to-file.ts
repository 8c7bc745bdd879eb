import { chmodSync, createWriteStream, renameSync, rmSync } from 'node:fs'
import { once } from 'node:events'
import { EXPORT_FORMAT, EXPORT_VERSION } from '../../shared/data/export-file'
import { AppErrorException } from '../../shared/errors/app-error'
import { openSqlite } from './database'
import type { DamagedRow } from './export-import'
import { agentFromRow } from './repositories/agents'
import { conversationFromRow, topicFromRow } from './repositories/conversations'
import { messageFromRow } from './repositories/message-rows'
import type { AgentRow, ConversationRow, MessageRow, TopicRow } from './schema'
import { isExportedSetting } from '../security/imported-settings'
import { providerToExport } from './provider-rows'
import { PRIVATE_FILE_MODE } from '../files/private-files'

export interface ExportProgress {
  done: number
  total: number
}

export interface ExportToFileResult {
  bytes: number
  damaged: DamagedRow[]
}

const dropUndefined = <T extends object>(value: T): T => Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T
const cancelled = () => new AppErrorException({ errorType: 'ExportCancelled', status: 499, message: 'The export was cancelled; no file was written.' })

/**
 * Writes the export file in pages, straight to disk: the same format as `Store.export`, but never
 * one string in memory and never a long pause. It reads on its own read-only connection inside
 * one read transaction, so the file is a consistent snapshot while replies keep streaming on
 * the main connection. Written to a temporary name and renamed: a cancelled or failed export
 * leaves no half file. Damaged rows are left out and listed.
 */
export async function exportToFile(
  databaseFile: string,
  target: string,
  appVersion: string,
  options: {
    signal?: AbortSignal
    onProgress?: (p: ExportProgress) => void
    pageSize?: number
    /** Knowledge bases, one at a time: the same elements as `data.export`'s `knowledgeBases`. */
    knowledgeBases?: () => Iterable<object>
  } = {}
): Promise<ExportToFileResult> {
  const sqlite = openSqlite(databaseFile, { readonly: true, fileMustExist: true })
  const partial = `${target}.partial`
  const out = createWriteStream(partial, { mode: PRIVATE_FILE_MODE })
  const damaged: DamagedRow[] = []
  let bytes = 0
  const write = async (text: string) => {
    bytes += Buffer.byteLength(text)
    if (!out.write(text)) await once(out, 'drain')
  }
  try {
    sqlite.exec('BEGIN')
    const count = (table: string) => (sqlite.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n
    const total = count('agents') + count('conversations') + count('topics') + count('messages')
    let done = 0
    await write(`{"format":${JSON.stringify(EXPORT_FORMAT)},"version":${EXPORT_VERSION},"appVersion":${JSON.stringify(appVersion)},"exportedAt":${Date.now()},"data":{`)
    const pageSize = options.pageSize ?? 1000
    const section = async <R>(name: string, table: DamagedRow['table'], sql: string, idOf: (row: R) => string, map: (row: R) => object) => {
      await write(`${name === 'agents' ? '' : ','}${JSON.stringify(name)}:[`)
      let first = true
      for (let offset = 0; ; offset += pageSize) {
        if (options.signal?.aborted) throw cancelled()
        const rows = sqlite.prepare(`${sql} LIMIT ? OFFSET ?`).all(pageSize, offset) as R[]
        if (rows.length === 0) break
        const parts: string[] = []
        for (const row of rows) {
          try {
            const value = map(row)
            if ((value as { damaged?: unknown }).damaged) damaged.push({ table, id: idOf(row) })
            else parts.push(JSON.stringify(dropUndefined(value)))
          } catch {
            damaged.push({ table, id: idOf(row) })
          }
        }
        if (parts.length > 0) await write(`${first ? '' : ','}${parts.join(',')}`)
        if (parts.length > 0) first = false
        done += rows.length
        options.onProgress?.({ done, total })
        await new Promise<void>((resolve) => setImmediate(resolve))
      }
      await write(']')
    }
    await section<AgentRow>('agents', 'agents', 'SELECT * FROM agents ORDER BY created_at, id', (r) => r.id, agentFromRow)
    await section<ConversationRow>('conversations', 'conversations', 'SELECT * FROM conversations ORDER BY created_at, id', (r) => r.id, conversationFromRow)
    await section<TopicRow>('topics', 'topics', 'SELECT * FROM topics ORDER BY created_at, id', (r) => r.id, topicFromRow)
    await section<MessageRow>('messages', 'messages', 'SELECT * FROM messages ORDER BY seq', (r) => r.id, messageFromRow)
    const settings: Record<string, unknown> = {}
    for (const row of sqlite.prepare('SELECT key, value FROM settings ORDER BY key').all() as Array<{ key: string; value: string }>) {
      if (!isExportedSetting(row.key)) continue
      try {
        settings[row.key] = JSON.parse(row.value)
      } catch {
        damaged.push({ table: 'settings', id: row.key })
      }
    }
    const providers: object[] = []
    for (const row of sqlite.prepare('SELECT * FROM provider_settings ORDER BY provider_id').all() as Array<{ provider_id: string; enabled: number; base_url: string | null; proxy_url: string | null; model_overrides: string }>) {
      try {
        providers.push(providerToExport(row))
      } catch {
        damaged.push({ table: 'provider_settings', id: row.provider_id })
      }
    }
    if (options.knowledgeBases) {
      await write(',"knowledgeBases":[')
      let first = true
      for (const base of options.knowledgeBases()) {
        if (options.signal?.aborted) throw cancelled()
        await write(`${first ? '' : ','}${JSON.stringify(base)}`)
        first = false
      }
      await write(']')
    }
    await write(`,"settings":${JSON.stringify(settings)},"providers":${JSON.stringify(providers)}}}`)
    sqlite.exec('COMMIT')
    out.end()
    await once(out, 'finish')
    chmodSync(partial, PRIVATE_FILE_MODE)
    renameSync(partial, target)
    return { bytes, damaged }
  } catch (error) {
    out.destroy()
    rmSync(partial, { force: true })
    throw error
  } finally {
    sqlite.close()
  }
}
