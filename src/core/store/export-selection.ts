import type { ExportFile } from '../../shared/data/export-file'
import type { StoreDb } from './database'
import { exportData, type DamagedRow } from './export-import'

export interface ExportSelection {
  /** These conversations, with their agent (so the file imports on its own). */
  conversationIds?: readonly string[]
  /** These agents, with all their conversations. */
  agentIds?: readonly string[]
}

/**
 * An export file that holds only the chosen conversations and agents: the same format as a full
 * export, so the same import reads it. Every conversation comes with its agent, topics and
 * messages; settings and provider settings stay out (they are not "a conversation").
 */
export function exportSelection(db: StoreDb, appVersion: string, selection: ExportSelection, damaged: DamagedRow[] = [], now = Date.now()): ExportFile {
  // The full snapshot, then filtered: one read transaction, the same row mapping and damage report.
  const full: DamagedRow[] = []
  const all = exportData(db, appVersion, now, full)
  const agentIds = new Set(selection.agentIds ?? [])
  const conversationIds = new Set(selection.conversationIds ?? [])
  for (const c of all.data.conversations) if (agentIds.has(c.agentId)) conversationIds.add(c.id)
  const conversations = all.data.conversations.filter((c) => conversationIds.has(c.id))
  for (const c of conversations) agentIds.add(c.agentId)
  // Damage outside the selection is not this file's concern.
  const conversationOf = (table: 'messages' | 'topics', id: string) => db.sqlite.prepare(`SELECT conversation_id FROM ${table} WHERE id = ?`).pluck().get(id) as string | undefined
  const kept = (row: DamagedRow) =>
    row.table === 'agents'
      ? agentIds.has(row.id)
      : row.table === 'conversations'
        ? conversationIds.has(row.id)
        : row.table === 'messages' || row.table === 'topics'
          ? conversationIds.has(conversationOf(row.table, row.id) ?? '')
          : false
  damaged.push(...full.filter(kept))
  return {
    ...all,
    data: {
      agents: all.data.agents.filter((a) => agentIds.has(a.id)),
      conversations,
      topics: all.data.topics.filter((t) => conversationIds.has(t.conversationId)),
      messages: all.data.messages.filter((m) => conversationIds.has(m.conversationId)),
      settings: {},
      providers: []
    }
  }
}
