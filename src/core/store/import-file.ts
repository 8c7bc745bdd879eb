import { randomUUID } from 'node:crypto'
import { open } from 'node:fs/promises'
import type { z } from 'zod'
import {
  agentSchema,
  conversationSchema,
  EXPORT_FORMAT,
  EXPORT_VERSION,
  FILE_INCOMPATIBLE_MESSAGE,
  importFailedMessage,
  jsonObjectSchema,
  messageSchema,
  providerExportSchema,
  topicSchema,
  type ImportReport
} from '../../shared/data/export-file'
import type { Agent } from '../../shared/data/agent'
import { DEFAULT_AGENT_NAME } from '../../shared/chat/default-names'
import type { Conversation, Topic } from '../../shared/data/conversation'
import type { JsonObject } from '../../shared/data/json'
import type { Message } from '../../shared/data/message'
import { AppErrorException } from '../../shared/errors/app-error'
import { knowledgeExportSchema, type KnowledgeExport } from '../../shared/knowledge/export-schema'
import type { SqliteDb, StoreDb } from './database'
import { storeError, StoreErrorType } from './errors'
import { walkArray, walkObject, valueEnd } from './json-scan'
import { importedEndpoints, providerRowFromImport } from './provider-rows'
import { agentToRow } from './repositories/agents'
import { conversationToRow } from './repositories/conversations'
import { messageToRow } from './repositories/message-rows'
import { checkImportedSettings } from '../security/imported-settings'
import type { ClientReach } from '../security/client-policy'
import { duplicateIds } from './import-checks'

export interface ImportProgress {
  phase: 'reading' | 'checking' | 'importing' | 'undoing'
  done: number
  total: number
}

export interface ImportFileOptions {
  /** Report what would be added and which endpoints the file sets; change nothing. */
  dryRun?: boolean
  /** Also set the provider endpoints the file holds (after the user saw them). */
  applyEndpoints?: boolean
  signal?: AbortSignal
  onProgress?: (progress: ImportProgress) => void
  /** Rows per write transaction (default 500). */
  batchSize?: number
  /** Longest stretch of work between two yields to the event loop (default 15 ms). */
  sliceMs?: number
  /**
   * The file's knowledge bases, handed over once the rows are committed (the knowledge service
   * adds them and indexes them again; their attachments name agents this import added).
   */
  onKnowledgeBases?: (bases: KnowledgeExport[]) => Promise<void>
  /** Who asked: the file's settings pass the same policy as that client's own procedures (the strictest when not said). */
  reach?: ClientReach
}

const fail = (reason: string) => storeError(StoreErrorType.ImportFailed, importFailedMessage(reason), 400)
const cancelled = () => new AppErrorException({ errorType: 'ImportCancelled', status: 499, message: 'The import was cancelled. Nothing was changed.' })

/**
 * Rows an import has added, until it ends. The journal is what makes a batched import all or
 * nothing: a failure or cancel deletes what it lists, and so does the next start-up after a kill.
 * Created on demand (not a numbered migration: it holds nothing between imports).
 */
const JOURNAL = 'CREATE TABLE IF NOT EXISTS import_journal (import_id TEXT NOT NULL, tbl TEXT NOT NULL, row_id TEXT NOT NULL)'
const TABLES = [
  { tbl: 'provider_settings', key: 'provider_id' },
  { tbl: 'settings', key: 'key' },
  { tbl: 'messages', key: 'id' },
  { tbl: 'topics', key: 'id' },
  { tbl: 'conversations', key: 'id' },
  { tbl: 'agents', key: 'id' }
] as const

/** Start-up: removes what an import killed midway had added. Returns how many rows. */
export function undoInterruptedImports(sqlite: SqliteDb): number {
  const has = sqlite.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'import_journal'").get()
  if (!has) return 0
  return sqlite.transaction(() => {
    let removed = 0
    for (const { tbl, key } of TABLES) {
      removed += sqlite.prepare(`DELETE FROM ${tbl} WHERE ${key} IN (SELECT row_id FROM import_journal WHERE tbl = ?)`).run(tbl).changes
    }
    sqlite.prepare('DELETE FROM import_journal').run()
    return removed
  })()
}

/** Yields to the event loop when a slice of work has run long enough; checks for a cancel there. */
class Pacer {
  private last = performance.now()
  constructor(
    private readonly sliceMs: number,
    private readonly signal?: AbortSignal
  ) {}
  async pace(): Promise<void> {
    if (performance.now() - this.last < this.sliceMs) return
    await new Promise<void>((resolve) => setImmediate(resolve))
    this.last = performance.now()
    if (this.signal?.aborted) throw cancelled()
  }
}

async function readText(path: string, pacer: Pacer, progress: (done: number, total: number) => void): Promise<string> {
  const handle = await open(path, 'r').catch((error: unknown) => {
    throw fail(`the file could not be read (${(error as { code?: string }).code ?? 'error'}). Nothing was changed.`)
  })
  try {
    const { size } = await handle.stat()
    const decoder = new TextDecoder('utf-8')
    const parts: string[] = []
    const chunk = Buffer.alloc(1024 * 1024)
    let done = 0
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null)
      if (bytesRead === 0) break
      parts.push(decoder.decode(chunk.subarray(0, bytesRead), { stream: true }))
      done += bytesRead
      progress(done, size)
      await pacer.pace()
    }
    parts.push(decoder.decode())
    const text = parts.join('')
    // A byte-order mark (some editors and Windows tools write one) is not part of the JSON.
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  } finally {
    await handle.close()
  }
}

interface Parsed {
  header: Record<string, unknown>
  agents: Agent[]
  conversations: Conversation[]
  topics: Topic[]
  messages: Message[]
  settings: JsonObject
  providers: Array<z.infer<typeof providerExportSchema>>
  knowledgeBases: KnowledgeExport[]
}

const ELEMENT_SCHEMAS = { agents: agentSchema, conversations: conversationSchema, topics: topicSchema, messages: messageSchema, providers: providerExportSchema, knowledgeBases: knowledgeExportSchema } as const

/** Largest row (one agent, message…) read from a file: a bigger one is refused before it is parsed. Knowledge bases carry their files and are exempt. */
export const MAX_IMPORT_ROW_CHARS = 16 * 1024 * 1024
const mb = (chars: number) => Math.round(chars / (1024 * 1024))

/** What JSON value the text holds at the top, for a message. */
const topLevelKind = (text: string): string => {
  const first = text.trimStart()[0]
  if (first === '{') return 'object'
  if (first === '[') return 'array'
  if (first === '"') return 'string'
  if (first === undefined) return 'nothing'
  return /[-\d]/.test(first) ? 'number' : 'value'
}

/** Takes the file apart element by element (validating each with the export schema), yielding as it goes. */
async function parseInSlices(text: string, pacer: Pacer, progress: (done: number, total: number) => void): Promise<Parsed> {
  const parsed: Parsed = { header: {}, agents: [], conversations: [], topics: [], messages: [], settings: {}, providers: [], knowledgeBases: [] }
  const seen = new Set<string>()
  const kind = topLevelKind(text)
  if (kind !== 'object') throw fail(`the file holds a JSON ${kind}, not an export object. Nothing was changed; choose a file made with "Export data".`)
  // Where the scan is, for a message that says where the file is wrong.
  let at = 'the top of the file'
  const sized = (start: number, end: number, where: string) => {
    if (end - start > MAX_IMPORT_ROW_CHARS)
      throw fail(`${where} is ${mb(end - start)} MB; the largest row an import reads is ${mb(MAX_IMPORT_ROW_CHARS)} MB. Nothing was changed.`)
  }
  try {
    await walkObject(text, 0, async (key, start) => {
      if (key !== 'data') {
        at = key
        const end = valueEnd(text, start)
        sized(start, end, key)
        parsed.header[key] = JSON.parse(text.slice(start, end))
        return end
      }
      if (parsed.header['format'] !== undefined && parsed.header['format'] !== EXPORT_FORMAT) throw notOurs()
      const version = parsed.header['version']
      if (typeof version === 'number' && version > EXPORT_VERSION) throw incompatible(version)
      at = 'data'
      return walkObject(text, start, async (kind, valueStart) => {
        seen.add(kind)
        at = `data.${kind}`
        if (kind === 'settings') {
          const end = valueEnd(text, valueStart)
          sized(valueStart, end, at)
          const checked = jsonObjectSchema.safeParse(JSON.parse(text.slice(valueStart, end)))
          if (!checked.success) throw fail(`data.settings: ${checked.error.issues[0]!.message}. Nothing was changed.`)
          parsed.settings = checked.data as JsonObject
          return end
        }
        const schema = (ELEMENT_SCHEMAS as Record<string, z.ZodType>)[kind]
        if (!schema) throw fail(`data.${kind}: not part of a Switchboard export. Nothing was changed.`)
        const list = (parsed as unknown as Record<string, unknown[]>)[kind]!
        return walkArray(text, valueStart, async (s, e) => {
          at = `data.${kind}.${list.length}`
          if (kind !== 'knowledgeBases') sized(s, e, at)
          const checked = schema.safeParse(JSON.parse(text.slice(s, e)))
          if (!checked.success) {
            const issue = checked.error.issues[0]!
            throw fail(`data.${kind}.${list.length}${issue.path.length ? `.${issue.path.join('.')}` : ''}: ${issue.message}. Nothing was changed.`)
          }
          list.push(checked.data)
          // A file cut short fails while the next row is scanned: name that row.
          at = `data.${kind}.${list.length}`
          progress(e, text.length)
          await pacer.pace()
        })
      })
    })
  } catch (error) {
    if (error instanceof AppErrorException) throw error
    // The parser and the checks walk nested values; a file nested thousands deep overflows them.
    if (error instanceof RangeError) throw fail(`${at} is nested too deeply to read. Nothing was changed.`)
    const detail = error instanceof Error && error.message ? ` (${error.message.slice(0, 120)})` : ''
    throw fail(`the file is not valid JSON at ${at}${detail}; it may be truncated or damaged. Nothing was changed; export it again and retry.`)
  }
  if (parsed.header['format'] !== EXPORT_FORMAT) throw notOurs()
  const version = parsed.header['version']
  if (typeof version === 'number' && version > EXPORT_VERSION) throw incompatible(version)
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) throw fail('version: the file has no valid version. Nothing was changed.')
  for (const kind of ['agents', 'conversations', 'topics', 'messages', 'settings']) {
    if (!seen.has(kind)) throw fail(`data.${kind}: missing. Nothing was changed.`)
  }
  return parsed
}

const notOurs = () => fail('this is not a Switchboard export file. Nothing was changed; choose a file made with "Export data".')
const incompatible = (version: number) =>
  storeError(StoreErrorType.FileIncompatible, FILE_INCOMPATIBLE_MESSAGE, 409, { fileVersion: version, supported: EXPORT_VERSION })

/**
 * The file's default agent mapped to this folder's (imported id → id here), when both exist
 * under different ids: the oldest agent of the default name on each side. Empty otherwise (the
 * same id is skipped as usual; a folder without one keeps the file's).
 */
function defaultAgentMerge(db: StoreDb, agents: readonly Agent[]): Map<string, string> {
  const theirs = agents.filter((a) => a.name === DEFAULT_AGENT_NAME).sort((a, b) => a.createdAt - b.createdAt)[0]
  const ours = db.sqlite.prepare('SELECT id FROM agents WHERE name = ? ORDER BY created_at, id LIMIT 1').get(DEFAULT_AGENT_NAME) as { id: string } | undefined
  if (!theirs || !ours || theirs.id === ours.id) return new Map()
  if (db.sqlite.prepare('SELECT 1 FROM agents WHERE id = ?').get(theirs.id) !== undefined) return new Map()
  return new Map([[theirs.id, ours.id]])
}

/**
 * Imports an export file from disk at any size: read and parsed in slices, written in small
 * transactions with a journal, so the event loop never stalls for long (other windows and
 * streams keep going) and the result is still all or nothing — a failure or a cancel removes
 * what was added, and a kill is undone at the next start-up. Existing ids are never overwritten.
 */
export async function importFile(db: StoreDb, path: string, options: ImportFileOptions = {}): Promise<ImportReport> {
  const pacer = new Pacer(options.sliceMs ?? 15, options.signal)
  const report = (phase: ImportProgress['phase']) => (done: number, total: number) => options.onProgress?.({ phase, done, total })
  if (options.signal?.aborted) throw cancelled()
  const text = await readText(path, pacer, report('reading'))
  const file = await parseInSlices(text, pacer, report('checking'))
  const checkedSettings = checkImportedSettings(file.settings, options.reach ?? 'remote')
  file.settings = checkedSettings.settings
  const duplicates = duplicateIds(file)
  const write = !options.dryRun
  const applyEndpoints = options.applyEndpoints === true
  const result: ImportReport = {
    added: { agents: 0, conversations: 0, topics: 0, messages: 0, settings: 0, providers: 0 },
    skipped: { agents: 0, conversations: 0, topics: 0, messages: 0, settings: 0, providers: 0 },
    endpoints: [],
    endpointsApplied: applyEndpoints && write,
    ...(write ? {} : { dryRun: true }),
    ...(checkedSettings.refused.length ? { refusedSettings: checkedSettings.refused } : {}),
    ...(duplicates.length ? { duplicates } : {})
  }
  const importId = randomUUID()
  if (write) db.sqlite.exec(JOURNAL)
  const journal = write ? db.sqlite.prepare('INSERT INTO import_journal (import_id, tbl, row_id) VALUES (?, ?, ?)') : undefined
  // In a dry run nothing is inserted: ids "added" so far are remembered here for the checks.
  const planned = new Map<string, Set<string>>()
  const exists = (table: 'agents' | 'conversations' | 'topics' | 'messages', id: string) =>
    planned.get(table)?.has(id) || db.sqlite.prepare(`SELECT 1 FROM ${table} WHERE id = ?`).get(id) !== undefined
  const added = (table: string, id: string) => {
    if (write) journal!.run(importId, table, id)
    else {
      if (!planned.has(table)) planned.set(table, new Set())
      planned.get(table)!.add(id)
    }
  }
  const conversationAgent = new Map<string, string>()
  // Every data folder makes its own default agent on first start, so a file from another one
  // brings a second "Just Chat": its conversations go under the one here instead.
  const mergedAgents = defaultAgentMerge(db, file.agents)
  const total = file.agents.length + file.conversations.length + file.topics.length + file.messages.length + Object.keys(file.settings).length + file.providers.length
  let done = 0

  const steps: Array<{ items: unknown[]; one: (item: never) => void }> = [
    {
      items: file.agents,
      one: (agent: Agent) => {
        if (mergedAgents.has(agent.id)) return void result.skipped.agents++
        const add = !exists('agents', agent.id)
        if (add && write) db.run(db.q.insertInto('agents').values(agentToRow(agent)))
        if (add) added('agents', agent.id)
        result[add ? 'added' : 'skipped'].agents++
      }
    },
    {
      items: file.conversations,
      one: (imported: Conversation) => {
        const merged = mergedAgents.get(imported.agentId)
        const conversation = merged ? { ...imported, agentId: merged } : imported
        if (!exists('agents', conversation.agentId))
          throw fail(`conversation ${conversation.id} belongs to agent ${conversation.agentId}, which is neither in the file nor in Switchboard. Nothing was changed.`)
        conversationAgent.set(conversation.id, conversation.agentId)
        const add = !exists('conversations', conversation.id)
        if (add && write) db.run(db.q.insertInto('conversations').values(conversationToRow(conversation)))
        if (add) added('conversations', conversation.id)
        result[add ? 'added' : 'skipped'].conversations++
      }
    },
    {
      items: file.topics,
      one: (topic: Topic) => {
        if (!exists('conversations', topic.conversationId)) throw fail(`topic ${topic.id} belongs to a conversation that is missing. Nothing was changed.`)
        const add = !exists('topics', topic.id)
        if (add && write)
          db.run(db.q.insertInto('topics').values({ id: topic.id, conversation_id: topic.conversationId, title: topic.title, created_at: topic.createdAt, updated_at: topic.updatedAt }))
        if (add) added('topics', topic.id)
        result[add ? 'added' : 'skipped'].topics++
      }
    },
    {
      items: file.messages,
      one: (message: Message) => {
        let agentId = conversationAgent.get(message.conversationId)
        if (!agentId) {
          const row = db.sqlite.prepare('SELECT agent_id FROM conversations WHERE id = ?').get(message.conversationId) as { agent_id: string } | undefined
          if (!row) throw fail(`message ${message.id} belongs to conversation ${message.conversationId}, which is missing. Nothing was changed.`)
          agentId = row.agent_id
          conversationAgent.set(message.conversationId, agentId)
        }
        const add = !exists('messages', message.id)
        if (add && write) db.run(db.q.insertInto('messages').values(messageToRow({ ...message, status: message.status === 'streaming' ? 'interrupted' : message.status }, agentId)))
        if (add) added('messages', message.id)
        result[add ? 'added' : 'skipped'].messages++
      }
    },
    {
      items: Object.entries(file.settings),
      one: ([key, value]: [string, unknown]) => {
        const add = db.sqlite.prepare('SELECT 1 FROM settings WHERE key = ?').get(key) === undefined
        if (add && write) db.run(db.q.insertInto('settings').values({ key, value: JSON.stringify(value) }))
        if (add) added('settings', key)
        result[add ? 'added' : 'skipped'].settings++
      }
    },
    {
      items: file.providers,
      one: (provider: Parsed['providers'][number]) => {
        const add = db.sqlite.prepare('SELECT 1 FROM provider_settings WHERE provider_id = ?').get(provider.providerId) === undefined
        const endpoints = add ? importedEndpoints(provider) : undefined
        if (endpoints) result.endpoints.push(endpoints)
        if (add && write) db.run(db.q.insertInto('provider_settings').values(providerRowFromImport(provider, applyEndpoints)))
        if (add) added('provider_settings', provider.providerId)
        result[add ? 'added' : 'skipped'].providers++
      }
    }
  ]

  const batchSize = options.batchSize ?? 500
  try {
    const sliceMs = options.sliceMs ?? 15
    for (const step of steps) {
      // Each transaction takes what fits in one slice of time (at most `batchSize` rows), so a
      // slow disk or a big row makes batches smaller instead of pauses longer.
      for (let i = 0; i < step.items.length; ) {
        const started = performance.now()
        const from = i
        db.transaction(() => {
          while (i < step.items.length && i - from < batchSize && (i === from || performance.now() - started < sliceMs)) step.one(step.items[i++] as never)
        })
        done += i - from
        options.onProgress?.({ phase: 'importing', done, total })
        await new Promise<void>((resolve) => setImmediate(resolve))
        if (options.signal?.aborted) throw cancelled()
      }
    }
    // The commit point: once the journal is gone, the import is kept.
    if (write) db.sqlite.prepare('DELETE FROM import_journal WHERE import_id = ?').run(importId)
  } catch (error) {
    if (write) await undo(db, importId, options.onProgress)
    if (error instanceof AppErrorException) throw error
    const code = typeof (error as { code?: unknown }).code === 'string' ? (error as { code: string }).code : 'unknown'
    throw fail(`the file's data conflicts with the database (${code}). Nothing was changed.`)
  }
  if (write && file.knowledgeBases.length > 0) await options.onKnowledgeBases?.(file.knowledgeBases)
  return result
}

/** Removes what import `importId` added, a chunk at a time (children before parents). */
async function undo(db: StoreDb, importId: string, onProgress?: (progress: ImportProgress) => void): Promise<void> {
  const total = (db.sqlite.prepare('SELECT count(*) AS n FROM import_journal WHERE import_id = ?').get(importId) as { n: number }).n
  let done = 0
  for (const { tbl, key } of TABLES) {
    for (;;) {
      const ids = (db.sqlite.prepare('SELECT row_id FROM import_journal WHERE import_id = ? AND tbl = ? LIMIT 500').all(importId, tbl) as Array<{ row_id: string }>).map((r) => r.row_id)
      if (ids.length === 0) break
      db.sqlite.transaction(() => {
        const marks = ids.map(() => '?').join(',')
        db.sqlite.prepare(`DELETE FROM ${tbl} WHERE ${key} IN (${marks})`).run(...ids)
        db.sqlite.prepare(`DELETE FROM import_journal WHERE import_id = ? AND tbl = ? AND row_id IN (${marks})`).run(importId, tbl, ...ids)
      })()
      done += ids.length
      onProgress?.({ phase: 'undoing', done, total })
      await new Promise<void>((resolve) => setImmediate(resolve))
    }
  }
}
