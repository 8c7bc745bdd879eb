import { rmSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { openStore } from '../../../src/core/store'
import { SearchRepository, toFtsQuery } from '../../../src/core/store/repositories/search'
import type { SnippetRun } from '../../../src/shared/data/search'
import { openTemp, seed } from './helpers'

let env: ReturnType<typeof openTemp>
afterEach(() => env?.cleanup())

const say = (conversationId: string, text: string, role: 'user' | 'assistant' = 'user') =>
  env.store.messages.create({ conversationId, role, content: [{ type: 'text', text }] })
const highlighted = (runs: SnippetRun[]) => runs.filter((r) => r.match).map((r) => r.text)

describe('full-text search', () => {
  it('finds words in any order, newest first, with the matched words highlighted as runs', () => {
    env = openTemp()
    const { conversation } = seed(env.store)
    const older = say(conversation.id, 'Bananas are rich in potassium and quite yellow.')
    say(conversation.id, 'Nothing relevant here.')
    const newer = say(conversation.id, 'Is potassium in a banana? Yes, bananas have potassium.', 'assistant')
    const hits = env.store.search.search('potassium bananas')
    expect(hits.map((h) => h.messageId)).toEqual([newer.id, older.id])
    expect(hits[0]).toMatchObject({ conversationId: conversation.id, conversationTitle: 'Helper chat', role: 'assistant' })
    expect(highlighted(hits[1]!.snippet)).toEqual(['Bananas', 'potassium'])
    expect(hits[1]!.snippet.map((r) => r.text).join('')).toBe('Bananas are rich in potassium and quite yellow.')
  })

  it('matches the last word as a prefix while typing, and folds case and accents', () => {
    env = openTemp()
    const { conversation } = seed(env.store)
    const m = say(conversation.id, 'Le Café de Flore est célèbre')
    expect(env.store.search.search('cafe cele').map((h) => h.messageId)).toEqual([m.id])
    expect(env.store.search.search('CAFÉ').map((h) => h.messageId)).toEqual([m.id])
    expect(env.store.search.search('flo')).toHaveLength(1)
    expect(env.store.search.search('fl')).toHaveLength(0)
    expect(env.store.search.search('flox')).toHaveLength(0)
  })

  it('is scoped to all, one agent, or one conversation', () => {
    env = openTemp()
    const a = seed(env.store, 'A')
    const b = seed(env.store, 'B')
    const a2 = env.store.conversations.create({ agentId: a.agent.id, title: 'A second' })
    const inA = say(a.conversation.id, 'shared term zebra')
    const inA2 = say(a2.id, 'shared term zebra again')
    const inB = say(b.conversation.id, 'zebra in B')
    const ids = (hits: { messageId: string }[]) => hits.map((h) => h.messageId).sort()
    expect(ids(env.store.search.search('zebra'))).toEqual([inA.id, inA2.id, inB.id].sort())
    expect(ids(env.store.search.search('zebra', { kind: 'agent', agentId: a.agent.id }))).toEqual([inA.id, inA2.id].sort())
    expect(ids(env.store.search.search('zebra', { kind: 'conversation', conversationId: a2.id }))).toEqual([inA2.id])
    // Moving a conversation to another agent moves its messages in the index too.
    env.store.conversations.update(a2.id, { agentId: b.agent.id })
    expect(ids(env.store.search.search('zebra', { kind: 'agent', agentId: b.agent.id }))).toEqual([inA2.id, inB.id].sort())
  })

  it('treats what people type as words, never as query syntax', () => {
    env = openTemp()
    const { conversation } = seed(env.store)
    const m = say(conversation.id, 'use AND, OR and NOT in "quotes" (carefully) col:value')
    for (const q of ['AND', 'OR NOT', '"quotes', '(carefully', 'col:value', 'NEAR(a b)', '*', '"', '-', 'col:']) {
      expect(() => env.store.search.search(q)).not.toThrow()
    }
    expect(env.store.search.search('"quotes"').map((h) => h.messageId)).toEqual([m.id])
    expect(env.store.search.search('AND OR').map((h) => h.messageId)).toEqual([m.id])
    expect(env.store.search.search('   ')).toEqual([])
    expect(toFtsQuery('a "b" cat')).toBe('"a" "b" "cat" *')
    // A one- or two-letter last word matches whole, not as a prefix of half the vocabulary.
    expect(toFtsQuery('cat ca')).toBe('"cat" "ca"')
  })

  it('drops deleted messages and follows edits', () => {
    env = openTemp()
    const { conversation } = seed(env.store)
    const m = say(conversation.id, 'ephemeral walrus')
    env.store.messages.update(m.id, { content: [{ type: 'text', text: 'permanent narwhal' }] })
    expect(env.store.search.search('walrus')).toHaveLength(0)
    expect(env.store.search.search('narwhal')).toHaveLength(1)
    env.store.messages.delete(m.id)
    expect(env.store.search.search('narwhal')).toHaveLength(0)
    expect(env.store.integrityCheck()).toEqual(['ok'])
    // The FTS index agrees with its content table.
    expect(() => env.store.db.sqlite.exec("INSERT INTO messages_fts(messages_fts, rank) VALUES ('integrity-check', 1)")).not.toThrow()
  })
})

describe('search ranking, filters and substrings (issue 16)', () => {
  it('ranks by bm25 with the newest first among equals', () => {
    env = openTemp()
    const { conversation } = seed(env.store)
    const strong = say(conversation.id, 'lemur lemur lemur lemur')
    const weakOld = say(conversation.id, 'a lemur in a long sentence about many other things entirely unrelated to it')
    const weakNew = say(conversation.id, 'a lemur in a long sentence about many other things entirely unrelated to it')
    expect(env.store.search.search('lemur').map((h) => h.messageId)).toEqual([strong.id, weakNew.id, weakOld.id])
  })

  it('filters by model and time window', () => {
    env = openTemp()
    const { conversation } = seed(env.store)
    const a = env.store.messages.create({ conversationId: conversation.id, role: 'assistant', modelId: 'gpt-x', content: [{ type: 'text', text: 'okapi facts' }] })
    const b = env.store.messages.create({ conversationId: conversation.id, role: 'assistant', modelId: 'claude-y', content: [{ type: 'text', text: 'okapi again' }] })
    const ids = (filters: object) => env.store.search.search('okapi', { kind: 'all' }, { filters }).map((h) => h.messageId)
    expect(ids({ modelId: 'gpt-x' })).toEqual([a.id])
    expect(ids({ modelId: 'claude-y' })).toEqual([b.id])
    expect(ids({ from: b.createdAt + 1 })).toEqual([])
    expect(ids({ to: b.createdAt + 1 }).sort()).toEqual([a.id, b.id].sort())
  })

  it('finds Chinese and Japanese by substring, highlighted; edits and deletes follow', () => {
    env = openTemp()
    const { conversation } = seed(env.store)
    const zh = say(conversation.id, '快速排序算法的平均复杂度是多少？')
    const ja = say(conversation.id, 'クイックソートは分割統治法です', 'assistant')
    expect(env.store.search.search('排序').map((h) => h.messageId)).toEqual([zh.id])
    expect(env.store.search.search('排序算法').map((h) => h.messageId)).toEqual([zh.id])
    expect(highlighted(env.store.search.search('排序算法')[0]!.snippet)).toEqual(['排序算法'])
    expect(env.store.search.search('分割統治').map((h) => h.messageId)).toEqual([ja.id])
    expect(env.store.search.search('ソート 分割').map((h) => h.messageId)).toEqual([ja.id])
    expect(env.store.search.search('排序 分割')).toEqual([])
    for (const q of ['"排序', '排序*', '排%', '排_', '(排序 OR']) expect(() => env.store.search.search(q)).not.toThrow()
    expect(env.store.search.search('排%')).toEqual([])
    env.store.messages.update(zh.id, { content: [{ type: 'text', text: '归并排序' }] })
    expect(env.store.search.search('快速排序')).toEqual([])
    expect(env.store.search.search('归并排序').map((h) => h.messageId)).toEqual([zh.id])
    env.store.messages.delete(zh.id)
    expect(env.store.search.search('排序')).toEqual([])
    expect(() => env.store.db.sqlite.exec("INSERT INTO messages_trigram(messages_trigram, rank) VALUES ('integrity-check', 1)")).not.toThrow()
  })
})

describe('migration 2 (issue 16)', () => {
  it('indexes the messages a version-1 database already holds', () => {
    env = openTemp()
    const { conversation } = seed(env.store)
    const old = say(conversation.id, '这是旧版本保存的快速排序说明')
    // Back to what version 1 left: no trigram index, schema version 1.
    env.store.db.sqlite.exec('DROP TABLE messages_trigram; DROP TRIGGER IF EXISTS messages_trigram_insert; DROP TRIGGER IF EXISTS messages_trigram_delete; DROP TRIGGER IF EXISTS messages_trigram_update;')
    env.store.db.sqlite.pragma('user_version = 1')
    env.store.close()
    const reopened = openStore({ dataDir: env.dir, dailyBackupMs: 0 }).store
    const dir = env.dir
    env = {
      ...env,
      store: reopened,
      cleanup: () => {
        reopened.close()
        rmSync(dir, { recursive: true, force: true })
      }
    }
    expect(reopened.search.search('快速排序').map((h) => h.messageId)).toEqual([old.id])
  })
})

describe('two-character Chinese queries (issue 16)', () => {
  it('scan only the newest messages (bounded), except inside one conversation; three characters use the trigram index at any age', () => {
    const env2 = openTemp()
    try {
      const { conversation } = seed(env2.store)
      const old = env2.store.messages.create({ conversationId: conversation.id, role: 'user', content: [{ type: 'text', text: '快速排序算法' }] })
      for (let i = 0; i < 6; i++) env2.store.messages.create({ conversationId: conversation.id, role: 'user', content: [{ type: 'text', text: `filler ${i}` }] })
      const recent = env2.store.messages.create({ conversationId: conversation.id, role: 'user', content: [{ type: 'text', text: '冒泡排序' }] })
      const bounded = new SearchRepository(env2.store.db, 5)
      expect(bounded.search('排序').map((h) => h.messageId)).toEqual([recent.id])
      expect(bounded.search('排序', { kind: 'conversation', conversationId: conversation.id }).map((h) => h.messageId).sort()).toEqual([old.id, recent.id].sort())
      expect(bounded.search('排序算').map((h) => h.messageId)).toEqual([old.id])
      // The store's own repository looks back far enough for both.
      expect(env2.store.search.search('排序').map((h) => h.messageId).sort()).toEqual([old.id, recent.id].sort())
    } finally {
      env2.cleanup()
    }
  })
})
