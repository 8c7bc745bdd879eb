import type { Agent } from '../../shared/data/agent'
import type { Conversation, Topic } from '../../shared/data/conversation'
import {
  EXPORT_FORMAT,
  EXPORT_VERSION,
  exportFileSchema,
  FILE_INCOMPATIBLE_MESSAGE,
  importFailedMessage,
  type ExportFile,
  type ImportReport
} from '../../shared/data/export-file'
import type { JsonObject } from '../../shared/data/json'
import type { Message } from '../../shared/data/message'
import type { StoreDb } from './database'
import { storeError, StoreErrorType } from './errors'
import { agentFromRow, agentToRow } from './repositories/agents'
import { conversationFromRow, conversationToRow, topicFromRow } from './repositories/conversations'
import { messageFromRow, messageToRow } from './repositories/message-rows'
import { importedEndpoints, providerRowFromImport, providerToExport } from './provider-rows'
import { checkImportedSettings, isExportedSetting } from '../security/imported-settings'
import type { ClientReach } from '../security/client-policy'
import { duplicateIds } from './import-checks'

/** A row export left out because it could not be read (damage on disk). Ids only: never content. */
export interface DamagedRow {
  table: 'agents' | 'conversations' | 'topics' | 'messages' | 'settings' | 'provider_settings'
  id: string
}

/** Maps rows, leaving out (and reporting) those that fail to read or came back damaged. */
function readable<R, T>(rows: R[], table: DamagedRow['table'], idOf: (row: R) => string, map: (row: R) => T, damaged: DamagedRow[]): T[] {
  const out: T[] = []
  for (const row of rows) {
    try {
      const value = map(row)
      if ((value as { damaged?: unknown }).damaged) damaged.push({ table, id: idOf(row) })
      else out.push(value)
    } catch {
      damaged.push({ table, id: idOf(row) })
    }
  }
  return out
}

/**
 * Everything a person would want to carry to another machine, as one object. Never keys: the
 * keychain is not read. Rows damaged on disk are left out and listed in `damaged`, so one bad
 * row never keeps the user from rescuing the rest.
 */
export function exportData(db: StoreDb, appVersion: string, now = Date.now(), damaged: DamagedRow[] = []): ExportFile {
  // One read transaction: the file is a consistent snapshot even while a reply streams.
  return db.transaction(() => {
    const settings: JsonObject = {}
    for (const row of db.all(db.q.selectFrom('settings').selectAll().orderBy('key'))) {
      if (!isExportedSetting(row.key)) continue
      try {
        settings[row.key] = JSON.parse(row.value)
      } catch {
        damaged.push({ table: 'settings', id: row.key })
      }
    }
    return {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    appVersion,
    exportedAt: now,
    data: {
      agents: readable(db.all(db.q.selectFrom('agents').selectAll().orderBy('created_at').orderBy('id')), 'agents', (r) => r.id, (r) => dropUndefined(agentFromRow(r)), damaged),
      conversations: readable(db.all(db.q.selectFrom('conversations').selectAll().orderBy('created_at').orderBy('id')), 'conversations', (r) => r.id, (r) => dropUndefined(conversationFromRow(r)), damaged),
      topics: readable(db.all(db.q.selectFrom('topics').selectAll().orderBy('created_at').orderBy('id')), 'topics', (r) => r.id, topicFromRow, damaged),
      messages: readable(db.all(db.q.selectFrom('messages').selectAll().orderBy('seq')), 'messages', (r) => r.id, (r) => dropUndefined(messageFromRow(r)), damaged),
      settings,
      providers: readable(db.all(db.q.selectFrom('provider_settings').selectAll().orderBy('provider_id')), 'provider_settings', (r) => r.provider_id, providerToExport, damaged)
    }
    } as ExportFile
  })
}

const dropUndefined = <T extends object>(value: T): T => Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T

const fail = (reason: string, detail?: JsonObject) => storeError(StoreErrorType.ImportFailed, importFailedMessage(reason), 400, detail)

/** Reads and checks an export file's text. Throws the message to show; never touches the database. */
export function parseExportFile(text: string): ExportFile {
  let raw: unknown
  try {
    // A byte-order mark (some editors and Windows tools write one) is not part of the JSON.
    raw = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text)
  } catch {
    throw fail('the file is not valid JSON; it may be truncated or damaged. Nothing was changed; export it again and retry.')
  }
  if (typeof raw !== 'object' || raw === null || (raw as { format?: unknown }).format !== EXPORT_FORMAT) {
    throw fail('this is not a Switchboard export file. Nothing was changed; choose a file made with "Export data".')
  }
  const version = (raw as { version?: unknown }).version
  if (typeof version === 'number' && version > EXPORT_VERSION) {
    throw storeError(StoreErrorType.FileIncompatible, FILE_INCOMPATIBLE_MESSAGE, 409, { fileVersion: version, supported: EXPORT_VERSION })
  }
  const parsed = exportFileSchema.safeParse(raw)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    const where = issue.path.length > 0 ? issue.path.join('.') : 'the file'
    throw fail(`${where}: ${issue.message}. Nothing was changed.`, { path: issue.path.map(String) })
  }
  return parsed.data
}

/**
 * Adds the file's contents in ONE transaction: all of it or none of it. Rows whose id already
 * exists are kept as they are (never overwritten) and counted as skipped; settings already set
 * keep their value. A reply that was streaming when exported comes in as `interrupted`.
 */
export interface ImportOptions {
  /** Run everything, report, then roll back: the preview the user confirms. */
  dryRun?: boolean
  /** Set the provider endpoints the file holds (only after the user saw them). */
  applyEndpoints?: boolean
  /** Who asked: the file's settings pass the same policy as that client's own procedures (the strictest when not said). */
  reach?: ClientReach
}

class DryRunRollback extends Error {}

export function importData(db: StoreDb, file: ExportFile, options: ImportOptions = {}): ImportReport {
  const applyEndpoints = options.applyEndpoints === true
  const report: ImportReport = {
    added: { agents: 0, conversations: 0, topics: 0, messages: 0, settings: 0, providers: 0 },
    skipped: { agents: 0, conversations: 0, topics: 0, messages: 0, settings: 0, providers: 0 },
    endpoints: [],
    endpointsApplied: applyEndpoints,
    ...(options.dryRun ? { dryRun: true } : {})
  }
  const { agents, conversations, topics, messages, providers = [] } = file.data
  const checked = checkImportedSettings(file.data.settings, options.reach ?? 'remote')
  const settings = checked.settings
  const duplicates = duplicateIds(file.data)
  if (checked.refused.length) report.refusedSettings = checked.refused
  if (duplicates.length) report.duplicates = duplicates
  const exists = (table: 'agents' | 'conversations' | 'topics' | 'messages', id: string) =>
    db.first(db.q.selectFrom(table).select('id').where('id', '=', id)) !== undefined
  const count = (kind: keyof ImportReport['added'], added: boolean) => void (added ? report.added[kind]++ : report.skipped[kind]++)

  try {
    db.transaction(() => {
      const conversationAgent = new Map<string, string>()
      for (const agent of agents as Agent[]) {
        const add = !exists('agents', agent.id)
        if (add) db.run(db.q.insertInto('agents').values(agentToRow(agent)))
        count('agents', add)
      }
      for (const conversation of conversations as Conversation[]) {
        requireRow(db, 'agents', conversation.agentId, `conversation ${conversation.id} belongs to agent ${conversation.agentId}, which is neither in the file nor in Switchboard`)
        const add = !exists('conversations', conversation.id)
        if (add) db.run(db.q.insertInto('conversations').values(conversationToRow(conversation)))
        count('conversations', add)
      }
      for (const topic of topics as Topic[]) {
        requireRow(db, 'conversations', topic.conversationId, `topic ${topic.id} belongs to a conversation that is missing`)
        const add = !exists('topics', topic.id)
        if (add)
          db.run(
            db.q.insertInto('topics').values({ id: topic.id, conversation_id: topic.conversationId, title: topic.title, created_at: topic.createdAt, updated_at: topic.updatedAt })
          )
        count('topics', add)
      }
      for (const message of messages as Message[]) {
        let agentId = conversationAgent.get(message.conversationId)
        if (!agentId) {
          const row = db.first(db.q.selectFrom('conversations').select('agent_id').where('id', '=', message.conversationId))
          if (!row) throw fail(`message ${message.id} belongs to conversation ${message.conversationId}, which is missing. Nothing was changed.`)
          agentId = row.agent_id
          conversationAgent.set(message.conversationId, agentId)
        }
        const add = !exists('messages', message.id)
        if (add) {
          const status = message.status === 'streaming' ? 'interrupted' : message.status
          db.run(db.q.insertInto('messages').values(messageToRow({ ...message, status }, agentId)))
        }
        count('messages', add)
      }
      for (const [key, value] of Object.entries(settings)) {
        const add = db.first(db.q.selectFrom('settings').select('key').where('key', '=', key)) === undefined
        if (add) db.run(db.q.insertInto('settings').values({ key, value: JSON.stringify(value) }))
        count('settings', add)
      }
      for (const provider of providers) {
        const add = db.first(db.q.selectFrom('provider_settings').select('provider_id').where('provider_id', '=', provider.providerId)) === undefined
        const endpoints = add ? importedEndpoints(provider) : undefined
        if (endpoints) report.endpoints.push(endpoints)
        if (add) db.run(db.q.insertInto('provider_settings').values(providerRowFromImport(provider, applyEndpoints)))
        count('providers', add)
      }
      if (options.dryRun) throw new DryRunRollback()
    })
  } catch (error) {
    if (error instanceof DryRunRollback) return report
    if (error instanceof Error && 'error' in error) throw error
    // A constraint the schema check could not see (a topic id reused across conversations…).
    const code = typeof (error as { code?: unknown }).code === 'string' ? (error as { code: string }).code : 'unknown'
    if (code === 'SQLITE_FULL') throw error
    throw fail(`the file's data conflicts with the database (${code}). Nothing was changed.`)
  }
  return report
}

function requireRow(db: StoreDb, table: 'agents' | 'conversations', id: string, reason: string): void {
  if (db.first(db.q.selectFrom(table).select('id').where('id', '=', id)) === undefined) throw fail(`${reason}. Nothing was changed.`)
}
