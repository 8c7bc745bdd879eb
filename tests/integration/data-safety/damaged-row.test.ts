import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { Core } from '../../../src/core'
import { MemoryBackend } from '../../../src/core/secrets'
import { databasePath, openStore } from '../../../src/core/store'
import { streamResult } from '../stream-result'
import { startTestCore } from '../test-core'

let core: Core | undefined
let dir: string | undefined
afterEach(async () => {
  await core?.close()
  core = undefined
  if (dir) rmSync(dir, { recursive: true, force: true })
})

const SECRET_WORDS = 'my-private-diary-entry'

/** Flips one byte of one message's stored JSON in the database file itself (not through SQLite). */
function flipByteInFile(file: string, marker: string) {
  const bytes = readFileSync(file)
  const at = bytes.indexOf(Buffer.from(`[{"type":"text","text":"${marker}`))
  expect(at).toBeGreaterThan(0)
  bytes[at + 1] = bytes[at + 1]! ^ 0x01 // '{' becomes 'z': still a valid page, no longer valid JSON
  writeFileSync(file, bytes)
}

describe('one damaged row is isolated', () => {
  it('the conversation opens, the damaged message shows as damaged with its text recovered, export skips and lists it, start-up finds it', async () => {
    dir = mkdtempSync(join(tmpdir(), 'sb-damaged-'))
    const seeded = openStore({ dataDir: dir, dailyBackupMs: 0 })
    const agent = seeded.store.agents.create({ name: 'A' })
    const conversation = seeded.store.conversations.create({ agentId: agent.id, title: 'T' })
    const ids: string[] = []
    for (const text of ['first message', `${SECRET_WORDS} damaged one`, 'third message']) {
      ids.push(seeded.store.messages.create({ conversationId: conversation.id, role: 'user', content: [{ type: 'text', text }] }).id)
    }
    seeded.store.close() // checkpoints the WAL into the file
    flipByteInFile(databasePath(dir), SECRET_WORDS)

    const app = await startTestCore('sb-damaged-', { dataDir: dir, secrets: { backend: new MemoryBackend() } })
    core = app.core
    const ready = app.state
    expect(ready.phase).toBe('ready')
    expect(ready.notices?.join(' ')).toMatch(/One message was damaged on disk/)
    expect(ready.notices?.join(' ')).not.toContain(SECRET_WORDS)
    const { client } = app

    const messages = await client.call('chat.messages', { conversationId: conversation.id })
    if (!messages.ok) throw new Error(messages.error.message)
    expect(messages.value.map((m) => m.id)).toEqual(ids)
    const [first, damaged, third] = messages.value
    expect(first!.damaged).toBeUndefined()
    expect(third!.content).toEqual([{ type: 'text', text: 'third message' }])
    expect(damaged!.damaged).toEqual(['content'])
    expect(damaged!.error?.errorType).toBe('MessageDamaged')
    expect(damaged!.error?.message).not.toContain(SECRET_WORDS)
    // What could be recovered: the plain-text copy kept for search.
    expect(damaged!.content).toEqual([{ type: 'text', text: `${SECRET_WORDS} damaged one` }])


    const path = join(mkdtempSync(join(tmpdir(), 'sb-damaged-export-')), 'export.json')
    const exported = await streamResult<{ damaged: unknown[] }>(client, 'data.exportFile', { path })
    if (!exported.ok) throw new Error(exported.error.message)
    expect(exported.value.damaged).toEqual([{ table: 'messages', id: ids[1] }])
    const file = JSON.parse(readFileSync(path, 'utf8')) as { data: { messages: Array<{ id: string }> } }
    expect(file.data.messages.map((m) => m.id)).toEqual([ids[0], ids[2]])
  })
})
