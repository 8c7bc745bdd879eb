import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { BridgeClient } from '../../../src/shared/bridge/client'
import type { Contract } from '../../../src/shared/bridge/contract'
import type { Result } from '../../../src/shared/errors/app-error'
import { hashedEmbeddingsReply } from '../../fixtures/fake-embeddings'
import { startFakeOpenAI, type FakeOpenAI } from '../../fixtures/fake-openai'
import { ok, startCore, TOPICS, writeTree, type TestCore } from './helpers'

// Knowledge bases through the streamed data export and import (issue 22): the file carries each
// base (settings, its files' bytes, what it is attached to); the importing app indexes it again.
let fake: FakeOpenAI
let source: TestCore
let kbId: string
let agentId: string
const folder = mkdtempSync(join(tmpdir(), 'sb-kb-transfer-'))

function runStream<R>(client: BridgeClient<Contract>, proc: 'data.importFile' | 'data.exportFile', input: object): Promise<Result<R>> {
  return new Promise((resolve) => client.stream(proc, input as never, { onEvent: () => undefined, onEnd: (r) => resolve(r as Result<R>) }))
}

beforeAll(async () => {
  fake = await startFakeOpenAI()
  fake.setDefault('/embeddings', hashedEmbeddingsReply())
  source = await startCore(fake.url)
  kbId = ok(await source.client.call('knowledge.create', { name: 'Handbook', providerId: 'openai', modelId: 'text-embedding-3-small', chunkSize: 500, chunkOverlap: 50 })).id
  ok(await source.client.call('knowledge.addPaths', { kbId, paths: [writeTree(TOPICS)] }))
  await source.core.services().knowledge.idle(kbId)
  agentId = (ok(await source.client.call('data.agents.create', { name: 'Office helper' } as never)) as { id: string }).id
  ok(await source.client.call('knowledge.attach', { owner: { kind: 'agent', id: agentId }, kbIds: [kbId] }))
})
afterAll(async () => {
  await source.core.close()
  await fake.close()
})

async function expectRebuilt(target: TestCore) {
  const bases = ok(await target.client.call('knowledge.list', {}))
  expect(bases.map((b) => b.name)).toEqual(['Handbook'])
  expect(bases[0]).toMatchObject({ id: kbId, chunkSize: 500, chunkOverlap: 50 })
  await target.core.services().knowledge.idle(kbId)
  const files = ok(await target.client.call('knowledge.files', { kbId }))
  expect(files).toHaveLength(Object.keys(TOPICS).length)
  expect(files.every((f) => f.status === 'Success')).toBe(true)
  const hits = ok(await target.client.call('knowledge.search', { kbIds: [kbId], query: 'office wifi password' }))
  expect(hits[0]!.fileName).toBe('wifi.txt')
  expect(ok(await target.client.call('knowledge.attached', { owner: { kind: 'agent', id: agentId } }))).toEqual([kbId])
}

describe('knowledge bases in the streamed export and import', () => {
  it('exportFile writes the bases; importFile on a fresh app adds them, attached as before, and indexes them again', async () => {
    const file = join(folder, 'export.json')
    ok(await runStream(source.client, 'data.exportFile', { path: file }))
    const written = JSON.parse(readFileSync(file, 'utf8')) as { data: { knowledgeBases?: { name: string; files: { name: string }[]; attachedTo: unknown[] }[] } }
    expect(written.data.knowledgeBases?.map((b) => b.name)).toEqual(['Handbook'])
    expect(written.data.knowledgeBases?.[0]!.files.map((f) => f.name).sort()).toEqual(Object.keys(TOPICS).map((p) => p.split('/').pop()).sort())
    expect(written.data.knowledgeBases?.[0]!.attachedTo).toEqual([{ kind: 'agent', id: agentId }])

    const target = await startCore(fake.url)
    try {
      ok(await runStream(target.client, 'data.importFile', { path: file }))
      await expectRebuilt(target)
    } finally {
      await target.core.close()
    }
  })

  it('a dry run adds no knowledge base', async () => {
    const file = join(folder, 'export.json')
    const target = await startCore(fake.url)
    try {
      ok(await runStream(target.client, 'data.importFile', { path: file, dryRun: true }))
      expect(ok(await target.client.call('knowledge.list', {}))).toEqual([])
    } finally {
      await target.core.close()
    }
  })
})
