import { z } from 'zod'
import { call, stream } from '../define'
import type { Agent } from '../../data/agent'
import { appSettingsPatchSchema, type AppSettings } from '../../data/app-settings'
import type { Conversation } from '../../data/conversation'
import { contentPartSchema, idSchema, modelParametersSchema, type ImportReport } from '../../data/export-file'
import type { ImageGeneration } from '../../data/image-generation'
import type { Message } from '../../data/message'
import type { SearchHit } from '../../data/search'
import { USAGE_KINDS, USAGE_OPERATIONS, USAGE_SCENES, type UsageLogEntry, type UsageSummaryRow } from '../../data/usage-log'

const empty = z.object({}).strict()
const byId = z.object({ id: idSchema }).strict()
const text = (max: number) => z.string().max(max)
const optionalId = idSchema.optional()

const agentFields = {
  name: text(200),
  // An emoji, or a 128 px webp data URL cropped in the renderer.
  avatar: text(200_000).optional(),
  description: text(10_000).optional(),
  systemPrompt: text(200_000).optional(),
  providerId: text(100).optional(),
  modelId: text(300).optional(),
  parameters: modelParametersSchema.optional(),
  tags: z.array(text(100)).max(100).optional()
}

const conversationFields = {
  title: text(500).optional(),
  providerId: text(100).optional(),
  modelId: text(300).optional(),
  parameters: modelParametersSchema.optional(),
  pinned: z.boolean().optional()
}

const usageFilter = {
  from: z.number().int().nonnegative().optional(),
  to: z.number().int().nonnegative().optional(),
  kind: z.enum(USAGE_KINDS).optional(),
  scene: z.enum(USAGE_SCENES).optional(),
  operation: z.enum(USAGE_OPERATIONS).optional(),
  conversationId: idSchema.optional(),
  agentId: idSchema.optional(),
  utcOffsetMinutes: z.number().int().min(-16 * 60).max(16 * 60).optional()
}

/** Progress of a file import or export: bytes read, then rows checked and written. */
export interface DataTransferProgress {
  phase: 'reading' | 'checking' | 'importing' | 'undoing' | 'exporting'
  done: number
  total: number
}

/** The parts of a backup the renderer may see (no paths of other folders). */
export interface BackupSummary {
  at: number
  schemaVersion: number
  reason: 'migration' | 'daily' | 'auto' | 'quit' | 'manual' | 'restore'
  /** The file's size and what it holds (absent when the file cannot be read). */
  size?: number
  holds?: { agents: number; conversations: number; messages: number; settings: number }
}

/** Settings → Data: where the data folder is and what uses its space (bytes). */
export interface DataFolderInfo {
  path: string
  /** Desktop: the shell can show the folder. Browser mode: the page offers the path to copy. */
  canOpen: boolean
  usage: { conversations: number; files: number; images: number; speech: number; backups: number }
  /** Stored files no row refers to any more (clean-up removes them). */
  unused: { count: number; bytes: number }
}

/**
 * Local data the screens read and edit directly: agents, conversations, a user's message edit,
 * search, the image gallery, usage, settings, export/import and backups. Anything with a rule
 * beyond a row write (deleting a message re-parents its children, deleting an image removes its
 * files, provider settings and keys) goes through its service's procedure instead (chat.*,
 * images.*, providers.*): one procedure per action.
 */
export const dataProcedures = {
  'data.agents.list': call<Agent[]>()(empty),
  'data.agents.get': call<Agent>()(byId),
  'data.agents.create': call<Agent>()(z.object(agentFields).strict()),
  'data.agents.update': call<Agent>()(z.object({ id: idSchema, patch: z.object(agentFields).partial().strict() }).strict()),
  /** Deletes the agent with its conversations; when it had any, a backup is made first (`backupAt`). */
  'data.agents.delete': call<{ deleted: boolean; conversations?: number; backupAt?: number }>()(byId),

  'data.conversations.list': call<Conversation[]>()(z.object({ agentId: optionalId }).strict()),
  'data.conversations.get': call<Conversation>()(byId),
  'data.conversations.create': call<Conversation>()(z.object({ agentId: idSchema, ...conversationFields }).strict()),
  'data.conversations.update': call<Conversation>()(
    z.object({ id: idSchema, patch: z.object({ agentId: optionalId, ...conversationFields }).strict() }).strict()
  ),
  'data.conversations.delete': call<{ deleted: boolean }>()(byId),

  /** Edits by the user (Modify Message); replies are written by the chat service, not here. */
  'data.messages.update': call<Message>()(
    z.object({ id: idSchema, patch: z.object({ content: z.array(contentPartSchema).max(1000), topicId: optionalId }).partial().strict() }).strict()
  ),

  'data.search': call<SearchHit[]>()(
    z
      .object({
        query: text(1000),
        scope: z
          .discriminatedUnion('kind', [
            z.object({ kind: z.literal('all') }).strict(),
            z.object({ kind: z.literal('agent'), agentId: idSchema }).strict(),
            z.object({ kind: z.literal('conversation'), conversationId: idSchema }).strict()
          ])
          .optional(),
        limit: z.number().int().min(1).max(200).optional(),
        /** The model that wrote the message and a time window (ms, `to` exclusive). */
        filters: z
          .object({ modelId: text(200).optional(), from: z.number().int().min(0).optional(), to: z.number().int().min(0).optional() })
          .strict()
          .optional()
      })
      .strict()
  ),

  'data.images.list': call<ImageGeneration[]>()(z.object({ limit: z.number().int().min(1).max(1000).optional() }).strict()),

  'data.usage.list': call<UsageLogEntry[]>()(z.object({ ...usageFilter, limit: z.number().int().min(1).max(10_000).optional() }).strict()),
  'data.usage.summary': call<UsageSummaryRow[]>()(
    z.object({ group: z.enum(['kind', 'scene', 'operation', 'provider', 'model', 'day', 'agent', 'conversation', 'apiKey']), ...usageFilter }).strict()
  ),

  'data.settings.get': call<AppSettings>()(empty),
  /** Merges the patch; `null` puts a key back to its default. Only the keys of AppSettings, in their shapes. */
  'data.settings.set': call<AppSettings>()(z.object({ patch: appSettingsPatchSchema }).strict()),

  /**
   * Import or export at any size, as a stream with progress (cancellable). The file is a path
   * on this machine (desktop), or a transfer id from the browser-mode upload (`POST
   * /data/upload`); an export made for a browser is downloaded from `GET /data/download/<id>`.
   */
  'data.importFile': stream<DataTransferProgress, ImportReport>()(
    z
      .object({
        path: z.string().min(1).max(4096).optional(),
        transferId: z.string().regex(/^[A-Za-z0-9_-]{8,64}$/).optional(),
        dryRun: z.boolean().optional(),
        applyEndpoints: z.boolean().optional()
      })
      .strict()
  ),
  /**
   * The desktop's own file dialog (shown by the Electron shell, attached to the window): where to
   * write an export, or which file to import; null when the user cancels. Browser mode has no
   * dialog on the server's machine (it uploads and downloads instead) and answers an error.
   */
  'data.choosePath': call<{ path: string } | null>()(z.object({ purpose: z.enum(['import', 'export']) }).strict()),
  'data.exportFile': stream<DataTransferProgress, { path?: string; transferId?: string; fileName: string; bytes: number; damaged: Array<{ table: string; id: string }> }>()(
    z.object({ path: z.string().min(1).max(4096).optional() }).strict()
  ),
  'data.backups.list': call<BackupSummary[]>()(empty),
  // ---- the Data page
  /** Only these conversations and agents (an agent brings all its conversations), as an export file. */
  'data.exportSelected': call<{ fileName: string; bytes: number; json?: string; transferId?: string; damaged: Array<{ table: string; id: string }> }>()(
    z.object({ conversationIds: z.array(idSchema).max(100_000).optional(), agentIds: z.array(idSchema).max(10_000).optional() }).strict()
  ),
  'data.backups.create': call<BackupSummary>()(empty),
  /** Restores a backup in place, after a copy of the current data ('restore' backup). */
  'data.backups.restore': call<{ restored: BackupSummary; safetyCopy: BackupSummary }>()(z.object({ at: z.number().int().nonnegative() }).strict()),
  'data.folder.info': call<DataFolderInfo>()(empty),
  /** Desktop only: shows the data folder in the system's file manager. */
  'data.folder.open': call<{ opened: true }>()(empty),
  /** Removes stored files that no row refers to any more. */
  'data.folder.clean': call<{ removed: number; bytes: number }>()(empty)
} as const
