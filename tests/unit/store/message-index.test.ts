import { afterEach, describe, expect, it } from 'vitest'
import { MESSAGE_INDEX_TRIGGERS, withMessageIndexDeferred } from '../../../src/core/store/message-index'
import type { Store } from '../../../src/core/store/store'
import { openTemp, seed } from './helpers'

const text = (t: string) => [{ type: 'text' as const, text: t }]
const cleanups: Array<() => void> = []
afterEach(() => {
  for (const c of cleanups.splice(0)) c()
})

function open() {
  const t = openTemp()
  cleanups.push(t.cleanup)
  return t.store
}

/** Both FTS5 indexes agree with the messages table (throws otherwise: SQLITE_CORRUPT_VTAB). */
function checkIndexes(store: Store) {
  store.db.sqlite.exec(`INSERT INTO messages_fts(messages_fts, rank) VALUES ('integrity-check', 1); INSERT INTO messages_trigram(messages_trigram, rank) VALUES ('integrity-check', 1);`)
}
const found = (store: Store, words: string) => store.search.search(words).map((h) => h.messageId).sort()
const triggers = (store: Store, schema: 'main' | 'temp') =>
  (store.db.sqlite.prepare(`SELECT name FROM ${schema}.sqlite_master WHERE type = 'trigger' AND tbl_name = 'messages' AND name LIKE 'messages_%'`).all() as Array<{ name: string }>).map((r) => r.name).sort()

describe('messages written with their full-text indexes deferred', () => {
  it('indexes every row added in one pass at the end; rows that were there keep theirs through updates and deletes (a cascade too)', () => {
    const store = open()
    const { agent, conversation } = seed(store)
    const other = store.conversations.create({ agentId: agent.id, title: 'Other' })
    const kept = store.messages.create({ conversationId: conversation.id, role: 'user', content: text('heliotrope before') })
    const edited = store.messages.create({ conversationId: conversation.id, role: 'user', content: text('marigold before') })
    const removed = store.messages.create({ conversationId: conversation.id, role: 'user', content: text('marigold doomed') })
    const cascaded = store.messages.create({ conversationId: other.id, role: 'user', content: text('marigold cascaded') })
    const db = store.db.sqlite
    let added = ''
    withMessageIndexDeferred(db, () => {
      added = store.messages.create({ conversationId: conversation.id, role: 'user', content: text('chrysanthemum 快速排序算法 added') }).id
      // Deferred: the new row is not in either index yet (this is what makes the bulk path fast).
      expect(db.prepare("SELECT COUNT(*) AS n FROM messages_fts WHERE messages_fts MATCH 'chrysanthemum'").get()).toEqual({ n: 0 })
      expect(triggers(store, 'main')).toEqual([])
      const changed = store.messages.create({ conversationId: conversation.id, role: 'user', content: text('added then edited') })
      db.prepare('UPDATE messages SET text = ? WHERE id = ?').run('chrysanthemum edited after adding', changed.id)
      store.messages.create({ conversationId: other.id, role: 'user', content: text('chrysanthemum added then cascaded') })
      db.prepare('UPDATE messages SET text = ? WHERE id = ?').run('snapdragon after', edited.id)
      store.messages.delete(removed.id)
      store.conversations.delete(other.id)
    })
    checkIndexes(store)
    expect(triggers(store, 'main')).toEqual([...MESSAGE_INDEX_TRIGGERS].sort())
    expect(triggers(store, 'temp')).toEqual([])
    expect(found(store, 'chrysanthemum')).toHaveLength(2)
    expect(found(store, 'chrysanthemum')).toContain(added)
    expect(found(store, '排序')).toEqual([added])
    expect(found(store, 'heliotrope')).toEqual([kept.id])
    expect(found(store, 'snapdragon')).toEqual([edited.id])
    expect(found(store, 'marigold')).toEqual([])
    expect(store.messages.get(cascaded.id)).toBeUndefined()
    // The triggers are back: a later write is indexed at once.
    const later = store.messages.create({ conversationId: conversation.id, role: 'user', content: text('zinnia later') })
    expect(found(store, 'zinnia')).toEqual([later.id])
    checkIndexes(store)
  })

  it('a write that throws leaves the rows, the indexes and the triggers as they were', () => {
    const store = open()
    const { conversation } = seed(store)
    const before = store.messages.create({ conversationId: conversation.id, role: 'user', content: text('lavender before') })
    expect(() =>
      withMessageIndexDeferred(store.db.sqlite, () => {
        store.messages.create({ conversationId: conversation.id, role: 'user', content: text('lavender lost') })
        store.messages.delete(before.id)
        throw new Error('stop')
      })
    ).toThrow('stop')
    expect(triggers(store, 'main')).toEqual([...MESSAGE_INDEX_TRIGGERS].sort())
    expect(triggers(store, 'temp')).toEqual([])
    expect(found(store, 'lavender')).toEqual([before.id])
    checkIndexes(store)
  })
})
