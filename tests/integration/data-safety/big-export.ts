import { writeFileSync } from 'node:fs'
import { EXPORT_FORMAT, EXPORT_VERSION } from '../../../src/shared/data/export-file'

/** Writes an export file with `messages` messages across conversations of 100, as an export would. */
export function writeBigExport(file: string, messages: number, prefix = 'big'): void {
  const at = 1_700_000_000_000
  const agents = [{ id: `${prefix}-agent`, name: 'Imported', systemPrompt: '', parameters: {}, tags: [], createdAt: at, updatedAt: at }]
  const conversations: object[] = []
  const rows: string[] = []
  for (let i = 0; i < messages; i++) {
    const c = Math.floor(i / 100)
    if (i % 100 === 0) conversations.push({ id: `${prefix}-c${c}`, agentId: `${prefix}-agent`, title: `Conversation ${c}`, pinned: false, createdAt: at, updatedAt: at })
    rows.push(
      JSON.stringify({
        id: `${prefix}-m${i}`,
        conversationId: `${prefix}-c${c}`,
        role: i % 2 ? 'assistant' : 'user',
        content: [{ type: 'text', text: `message ${i} with some words to index, like lanterns and rivers and quiet hills` }],
        status: 'complete',
        createdAt: at + i,
        updatedAt: at + i
      })
    )
  }
  const head = JSON.stringify({ format: EXPORT_FORMAT, version: EXPORT_VERSION, appVersion: 'test', exportedAt: at })
  writeFileSync(
    file,
    `${head.slice(0, -1)},"data":{"agents":${JSON.stringify(agents)},"conversations":${JSON.stringify(conversations)},"topics":[],"messages":[${rows.join(',')}],"settings":{},"providers":[]}}`
  )
}
