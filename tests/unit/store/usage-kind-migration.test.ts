import { rmSync } from 'node:fs'
import { afterEach, expect, it } from 'vitest'
import { openStore } from '../../../src/core/store'
import { openTemp } from './helpers'

let cleanup: (() => void) | undefined
afterEach(() => {
  cleanup?.()
  cleanup = undefined
})

it('usage lines an older version wrote get their kind: the Images page’s are images, the rest chat', () => {
  const env = openTemp()
  // What version 10 had: no kind column, a chat reply's line and an image generation's.
  const db = env.store.db.sqlite
  db.exec('DROP INDEX usage_log_kind')
  db.exec('ALTER TABLE usage_log DROP COLUMN kind')
  const insert = db.prepare('INSERT INTO usage_log (id, at, scene, provider_id, model_id, cost_total, currency, total_tokens) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
  insert.run('u1', 1, 'Conversation', 'openai', 'gpt-4o-mini', 0.002, 'USD', 1500)
  insert.run('u2', 2, 'Image Generation', 'bfl', 'flux-pro-1.1', 0.06, 'USD', null)
  db.pragma('user_version = 10')
  env.store.close()

  const reopened = openStore({ dataDir: env.dir, dailyBackupMs: 0 }).store
  cleanup = () => {
    reopened.close()
    rmSync(env.dir, { recursive: true, force: true })
  }
  expect(reopened.usage.list().map((e) => [e.id, e.kind])).toEqual([
    ['u2', 'image'],
    ['u1', 'chat']
  ])
  expect(reopened.usage.summary('kind').map((r) => [r.key, r.calls, r.cost])).toEqual([
    ['chat', 1, 0.002],
    ['image', 1, 0.06]
  ])
  // A line written now without a kind is chat, as every caller's chat stream writes it.
  expect(reopened.usage.add({ scene: 'Translator', providerId: 'openai', modelId: 'gpt-4o-mini' }).kind).toBe('chat')
})
