import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { Core } from '../../../src/core'
import { MemoryBackend } from '../../../src/core/secrets'
import { listBackups } from '../../../src/core/store'
import { exportSelection } from '../../../src/core/store/export-selection'
import type { ImportReport } from '../../../src/shared/data/export-file'
import { streamResult } from '../stream-result'
import { chatChunks, startFakeOpenAI } from '../../fixtures/fake-openai'
import type { Message } from '../../../src/shared/data/message'
import type { Result } from '../../../src/shared/errors/app-error'
import { startTestCore } from '../test-core'

// Issue 16, Settings → Data: back up now, restore in place (after a copy), the data folder's space
// and the clean-up of stored files nothing refers to, and exporting a selection.
let core: Core | undefined
const dirs: string[] = []
afterEach(async () => {
  await core?.close()
  core = undefined
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

async function start() {
  const dir = mkdtempSync(join(tmpdir(), 'sb-data-page-'))
  dirs.push(dir)
  const app = await startTestCore('sb-data-page-', { dataDir: dir, secrets: { backend: new MemoryBackend() } })
  core = app.core
  const { client } = app
  return { client, dir, store: core.services().store }
}

const ok = <T>(r: { ok: true; value: T } | { ok: false; error: { message: string } }): T => {
  if (!r.ok) throw new Error(r.error.message)
  return r.value
}

describe('backups from the Data page', () => {
  it('back up now, change the data, restore: the data is as in the backup, and a copy of what was replaced is kept', async () => {
    const { client, store } = await start()
    const agent = ok(await client.call('data.agents.create', { name: 'Keeper' }))
    const kept = ok(await client.call('data.conversations.create', { agentId: agent.id, title: 'Before the backup' }))
    store.messages.create({ conversationId: kept.id, role: 'user', content: [{ type: 'text', text: 'quicksort is kept' }] })
    const made = ok(await client.call('data.backups.create', {}))
    expect(made.reason).toBe('manual')
    expect(made.holds).toMatchObject({ conversations: 1, messages: 1 })
    expect(made.size).toBeGreaterThan(0)

    ok(await client.call('data.conversations.create', { agentId: agent.id, title: 'After the backup' }))
    ok(await client.call('data.conversations.delete', { id: kept.id }))

    const result = ok(await client.call('data.backups.restore', { at: made.at }))
    expect(result.restored.at).toBe(made.at)
    expect(result.safetyCopy.reason).toBe('restore')
    expect(result.safetyCopy.holds).toMatchObject({ conversations: 1 })
    // The same connection serves on: every service sees the restored rows, search included.
    expect(ok(await client.call('data.conversations.list', {})).map((c) => c.title)).toEqual(['Before the backup'])
    expect(ok(await client.call('data.search', { query: 'quicksort' }))).toHaveLength(1)
    // And writes after the restore work and land in the same file.
    ok(await client.call('data.conversations.create', { agentId: agent.id, title: 'After the restore' }))
    expect(store.integrityCheck()).toEqual(['ok'])
    expect(listBackups(store.dataDir).map((b) => b.reason)).toEqual(expect.arrayContaining(['manual', 'restore']))
  })

  it('a restore while a reply streams stops the reply first: it is kept in the safety copy, nothing writes into the restored data', async () => {
    const fake = await startFakeOpenAI()
    try {
      const { client, store } = await start()
      const made = ok(await client.call('data.backups.create', {}))
      ok(await client.call('providers.update', { providerId: 'openai', baseURL: fake.url }))
      ok(await client.call('providers.setKey', { providerId: 'openai', apiKey: 'sk-test-restore-0123456789' }))
      const pieces = Array.from({ length: 400 }, (_, i) => `word${i} `)
      fake.setDefault('/chat/completions', { kind: 'sse', chunks: chatChunks(pieces), delayMs: 25 })
      const agentId = ok(await client.call('chat.sidebar', {})).defaultAgentId
      const conversation = ok(await client.call('data.conversations.create', { agentId, title: 'Streaming', providerId: 'openai', modelId: 'gpt-4o-mini' }))
      let deltas = 0
      const ended = new Promise<Result<Message>>((resolve) =>
        client.stream('chat.send', { conversationId: conversation.id, text: 'write a lot' } as never, { onEvent: () => void deltas++, onEnd: (r) => resolve(r as Result<Message>) })
      )
      await vi.waitFor(() => expect(deltas).toBeGreaterThan(5), { timeout: 10_000 })

      const result = ok(await client.call('data.backups.restore', { at: made.at }))
      // The reply was stopped before the data was replaced, and ended.
      const reply = await ended
      expect(ok(await client.call('tasks.active', {}))).toEqual([])
      // The restored data is the backup's: no conversation, no message, nothing streaming.
      expect(ok(await client.call('data.conversations.list', {}))).toEqual([])
      expect(store.db.sqlite.prepare('SELECT count(*) AS n FROM messages').get()).toEqual({ n: 0 })
      expect(store.integrityCheck()).toEqual(['ok'])
      // The stopped reply, with what had streamed, is in the safety copy made just before.
      const copy = listBackups(store.dataDir).find((b) => b.at === result.safetyCopy.at)!
      const saved = new Database(copy.file, { readonly: true })
      try {
        const rows = saved.prepare("SELECT role, status, text FROM messages WHERE conversation_id = ? ORDER BY seq").all(conversation.id) as { role: string; status: string; text: string }[]
        expect(rows.map((r) => r.role)).toEqual(['user', 'assistant'])
        expect(rows[1]!.status).not.toBe('streaming')
        expect(rows[1]!.text).toContain('word0')
      } finally {
        saved.close()
      }
      // Nothing the stopped reply did afterwards reached the restored file.
      await new Promise((r) => setTimeout(r, 200))
      expect(store.db.sqlite.prepare('SELECT count(*) AS n FROM messages').get()).toEqual({ n: 0 })
      expect(reply.ok ? reply.value.status : reply.error.errorType).toBeDefined()
    } finally {
      await fake.close()
    }
  })

  it('an unknown backup is NotFound and changes nothing; an unreadable one is refused before any copy is made', async () => {
    const { client, store } = await start()
    const missing = await client.call('data.backups.restore', { at: 123 })
    expect(!missing.ok && missing.error.errorType).toBe('NotFound')
    const dir = join(store.dataDir, 'backups')
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'switchboard-0000000000456-v4-manual.db'), 'not a database')
    const before = listBackups(store.dataDir).length
    const bad = await client.call('data.backups.restore', { at: 456 })
    expect(bad.ok).toBe(false)
    expect(listBackups(store.dataDir)).toHaveLength(before)
  })
})

describe('the data folder', () => {
  it('reports its path and what each kind of data uses; clean-up removes only old files no row refers to', async () => {
    const { client, dir, store } = await start()
    const info = ok(await client.call('data.folder.info', {}))
    expect(info.path).toBe(dir)
    expect(info.canOpen).toBe(false)
    expect(info.usage.conversations).toBeGreaterThan(0)

    const old = (path: string, bytes: number) => {
      mkdirSync(join(path, '..'), { recursive: true })
      writeFileSync(path, Buffer.alloc(bytes, 1))
      const t = new Date(Date.now() - 2 * 3600_000)
      utimesSync(path, t, t)
      return path
    }
    const sha = 'a'.repeat(64)
    const usedFile = old(join(dir, 'files', `${sha}.png`), 100)
    const usedText = old(join(dir, 'files', `${sha}.txt`), 10)
    store.files.add({ path: `files/${sha}.png`, name: 'used.png', mimeType: 'image/png', size: 100, sha256: sha })
    const orphan = old(join(dir, 'files', `${'b'.repeat(64)}.pdf`), 1000)
    const orphanImage = old(join(dir, 'images', 'ab', 'gone.png'), 2000)
    const agent = store.agents.create({ name: 'Speaker' })
    const conversation = store.conversations.create({ agentId: agent.id })
    const message = store.messages.create({ conversationId: conversation.id, role: 'assistant', content: [{ type: 'text', text: 'hello' }] })
    const spoken = old(join(dir, 'speech', `${message.id}-${'c'.repeat(24)}.mp3`), 300)
    const orphanSpeech = old(join(dir, 'speech', `deleted-message-${'d'.repeat(24)}.mp3`), 400)
    // Just written (an upload before its row exists): never taken for unused.
    mkdirSync(join(dir, 'files'), { recursive: true })
    const fresh = join(dir, 'files', `${'e'.repeat(64)}.png`)
    writeFileSync(fresh, 'new')

    const before = ok(await client.call('data.folder.info', {}))
    expect(before.usage.images).toBe(2000)
    expect(before.usage.speech).toBe(700)
    expect(before.unused).toEqual({ count: 3, bytes: 3400 })
    expect(ok(await client.call('data.folder.clean', {}))).toEqual({ removed: 3, bytes: 3400 })
    for (const gone of [orphan, orphanImage, orphanSpeech]) expect(existsSync(gone)).toBe(false)
    for (const stays of [usedFile, usedText, spoken, fresh, store.path]) expect(existsSync(stays)).toBe(true)
    expect(ok(await client.call('data.folder.info', {})).unused).toEqual({ count: 0, bytes: 0 })
  })

  it('opening the folder is for the desktop only: elsewhere the page shows the path instead', async () => {
    const { client } = await start()
    const r = await client.call('data.folder.open', {})
    expect(!r.ok && r.error.errorType).toBe('ValidationError')
  })
})

describe('exporting a selection', () => {
  it('holds the chosen conversations with their agents, topics and messages, and an agent brings all its conversations', async () => {
    const { client, store } = await start()
    const a = store.agents.create({ name: 'A' })
    const b = store.agents.create({ name: 'B' })
    const a1 = store.conversations.create({ agentId: a.id, title: 'a1' })
    store.conversations.create({ agentId: a.id, title: 'a2' })
    const b1 = store.conversations.create({ agentId: b.id, title: 'b1' })
    const b2 = store.conversations.create({ agentId: b.id, title: 'b2' })
    store.messages.create({ conversationId: a1.id, role: 'user', content: [{ type: 'text', text: 'in a1' }] })
    store.messages.create({ conversationId: b2.id, role: 'user', content: [{ type: 'text', text: 'in b2' }] })
    const file = exportSelection(store.db, 'test', { conversationIds: [a1.id], agentIds: [b.id] })
    expect(file.data.agents.map((x) => x.name).sort()).toEqual(['A', 'B'])
    expect(file.data.conversations.map((c) => c.title).sort()).toEqual(['a1', 'b1', 'b2'])
    expect(file.data.messages.map((m) => m.conversationId).sort()).toEqual([a1.id, b2.id].sort())
    expect(file.data.settings).toEqual({})
    expect(b1.id).toBeTruthy()

    // Over the bridge (not browser mode): the text comes back to save, and imports into a fresh folder.
    const exported = ok(await client.call('data.exportSelected', { conversationIds: [a1.id] }))
    expect(exported.fileName).toMatch(/-selection\.json$/)
    await core!.close()
    const other = await start()
    const path = join(mkdtempSync(join(tmpdir(), 'sb-selection-')), exported.fileName)
    writeFileSync(path, exported.json!)
    const imported = await streamResult<ImportReport>(other.client, 'data.importFile', { path })
    if (!imported.ok) throw new Error(imported.error.message)
    const report = imported.value
    expect(report.added).toMatchObject({ agents: 1, conversations: 1, messages: 1 })
    expect(ok(await other.client.call('data.conversations.list', {})).map((c) => c.title)).toEqual(['a1'])
  })
})

describe('deleting an agent', () => {
  it('deletes its conversations after a backup that holds them; an agent without conversations needs none', async () => {
    const { client, store } = await start()
    const empty = ok(await client.call('data.agents.create', { name: 'Empty' }))
    expect(ok(await client.call('data.agents.delete', { id: empty.id }))).toEqual({ deleted: true })
    const agent = ok(await client.call('data.agents.create', { name: 'Busy' }))
    const c1 = ok(await client.call('data.conversations.create', { agentId: agent.id, title: 'one' }))
    ok(await client.call('data.conversations.create', { agentId: agent.id, title: 'two' }))
    store.messages.create({ conversationId: c1.id, role: 'user', content: [{ type: 'text', text: 'keep me in the backup' }] })
    const result = ok(await client.call('data.agents.delete', { id: agent.id }))
    expect(result).toMatchObject({ deleted: true, conversations: 2 })
    expect(ok(await client.call('data.conversations.list', { agentId: agent.id }))).toEqual([])
    const backup = ok(await client.call('data.backups.list', {})).find((b) => b.at === result.backupAt)
    expect(backup?.holds).toMatchObject({ conversations: 2, messages: 1 })
    // And the backup brings them back.
    ok(await client.call('data.backups.restore', { at: result.backupAt! }))
    expect(ok(await client.call('data.conversations.list', { agentId: agent.id })).map((c) => c.title).sort()).toEqual(['one', 'two'])
  })
})
