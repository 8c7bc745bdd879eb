import { afterAll, beforeAll, expect, it } from 'vitest'
import { startFakeEmbeddingServer, type FakeEmbeddingServer } from '../../fixtures/fake-embeddings'
import { ok, startCore, TOPICS, writeTree, type TestCore } from './helpers'

// Restoring a backup in place (issue 16) with knowledge bases in it (issue 22): files the backup
// holds as waiting are indexed after the restore, as a start-up would, and the search answers
// from the restored data.
let fake: FakeEmbeddingServer
let t: TestCore

beforeAll(async () => {
  fake = await startFakeEmbeddingServer()
  t = await startCore(fake.url)
})
afterAll(async () => {
  await t.core.close()
  await fake.close()
})

it('files that were waiting in the restored backup are indexed, and search finds them', async () => {
  const base = ok(await t.client.call('knowledge.create', { name: 'Notes', providerId: 'openai', modelId: 'text-embedding-3-small' }))
  // A slow embedding service: the backup is made while every file still waits.
  fake.delay(1500)
  ok(await t.client.call('knowledge.addPaths', { kbId: base.id, paths: [writeTree(TOPICS)] }))
  const backup = ok(await t.client.call('data.backups.create', {}))
  fake.delay(0)
  await t.core.context.knowledge!.idle(base.id)
  const indexed = ok(await t.client.call('knowledge.files', { kbId: base.id }))
  expect(indexed.every((f) => f.status === 'Success')).toBe(true)

  ok(await t.client.call('data.backups.restore', { at: backup.at }))
  await t.core.context.knowledge!.idle(base.id)
  const after = ok(await t.client.call('knowledge.files', { kbId: base.id }))
  expect(after).toHaveLength(Object.keys(TOPICS).length)
  expect(after.map((f) => [f.name, f.status])).toEqual(after.map((f) => [f.name, 'Success']))
  const hits = ok(await t.client.call('knowledge.search', { kbIds: [base.id], query: 'what is the office wifi password?' }))
  expect(hits[0]?.fileName).toBe('wifi.txt')
})
