import { rmSync } from 'node:fs'
import { afterEach, expect, it } from 'vitest'
import { openStore } from '../../../src/core/store'
import { openTemp, seed } from './helpers'

let cleanup: (() => void) | undefined
afterEach(() => {
  cleanup?.()
  cleanup = undefined
})

it('knowledge sources kept in their own table by an older version move into their reply’s grounding, beside its web citations', () => {
  const env = openTemp()
  const { conversation } = seed(env.store)
  const reply = env.store.messages.create({ conversationId: conversation.id, role: 'assistant', content: [{ type: 'text', text: 'The password is in the file [1].' }], grounding: { citations: [{ url: 'https://example.com/wifi', title: 'Wifi' }] } })
  const plain = env.store.messages.create({ conversationId: conversation.id, role: 'assistant', content: [{ type: 'text', text: 'No sources here.' }] })
  // What version 8 had: the table, with a reply's two sources (one scored, one from before scores).
  const db = env.store.db.sqlite
  db.exec(`CREATE TABLE kb_reply_sources (message_id TEXT NOT NULL, n INTEGER NOT NULL, kb_id TEXT NOT NULL, file_id TEXT NOT NULL, file_name TEXT NOT NULL, chunk_id INTEGER NOT NULL,
    heading TEXT, page INTEGER, char_start INTEGER NOT NULL, char_end INTEGER NOT NULL, excerpt TEXT NOT NULL, score REAL, PRIMARY KEY (message_id, n)) STRICT`)
  const insert = db.prepare('INSERT INTO kb_reply_sources VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
  insert.run(reply.id, 2, 'kb1', 'f2', 'notes.md', 7, 'Network', null, 10, 40, 'second', null)
  insert.run(reply.id, 1, 'kb1', 'f1', 'wifi.txt', 3, null, 2, 0, 30, 'The office wifi password', 0.83)
  insert.run('gone-message', 1, 'kb1', 'f1', 'wifi.txt', 3, null, null, 0, 30, 'orphan', 0.5)
  db.pragma('user_version = 8')
  env.store.close()

  const reopened = openStore({ dataDir: env.dir, dailyBackupMs: 0 }).store
  cleanup = () => {
    reopened.close()
    rmSync(env.dir, { recursive: true, force: true })
  }
  const moved = reopened.messages.require(reply.id).grounding
  expect(moved?.citations).toEqual([{ url: 'https://example.com/wifi', title: 'Wifi' }])
  expect(moved?.knowledge).toEqual([
    { n: 1, kbId: 'kb1', fileId: 'f1', fileName: 'wifi.txt', chunkId: 3, heading: null, page: 2, charStart: 0, charEnd: 30, excerpt: 'The office wifi password', score: 0.83 },
    { n: 2, kbId: 'kb1', fileId: 'f2', fileName: 'notes.md', chunkId: 7, heading: 'Network', page: null, charStart: 10, charEnd: 40, excerpt: 'second' }
  ])
  expect(reopened.messages.require(plain.id).grounding).toBeUndefined()
  expect(reopened.db.sqlite.prepare("SELECT name FROM sqlite_master WHERE name = 'kb_reply_sources'").get()).toBeUndefined()
})
