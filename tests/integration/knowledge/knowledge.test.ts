import { createHash } from 'node:crypto'
import { existsSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { KnowledgeFile } from '../../../src/shared/knowledge/types'
import { startFakeEmbeddingServer, type FakeEmbeddingServer } from '../../fixtures/fake-embeddings'
import { newTransfer } from '../../../src/core/store/transfers'
import { ok, startCore, TOPICS, writeTree, type TestCore } from './helpers'

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
beforeEach(() => fake.reset())

const kb = () => t.core.services().knowledge
async function newBase(name = 'Notes', extra: { chunkSize?: number } = {}) {
  return ok(await t.client.call('knowledge.create', { name, providerId: 'openai', modelId: 'text-embedding-3-small', ...extra }))
}
const files = async (kbId: string) => ok(await t.client.call('knowledge.files', { kbId }))
const byName = (list: KnowledgeFile[], name: string) => list.find((f) => f.name === name)!

describe('knowledge bases', () => {
  it('builds a base from a folder (include/exclude), and a question finds the one file that answers it', async () => {
    const root = writeTree({ ...TOPICS, 'notes/skip.log': 'ignored by exclude', 'image.png': new Uint8Array([137, 80, 78, 71]), 'node_modules/x/readme.md': 'never read' })
    const base = await newBase()
    const added = ok(await t.client.call('knowledge.addPaths', { kbId: base.id, paths: [root], exclude: ['*.log'] }))
    expect(added.added).toBe(Object.keys(TOPICS).length)
    expect(added.skipped).toBe(1) // the PNG
    await kb().idle(base.id)
    const list = await files(base.id)
    expect(list.map((f) => [f.name, f.status, f.stage, f.flagged, f.progress])).toEqual(list.map((f) => [f.name, 'Success', 'done', null, 1]))
    // Stored under the data folder by sha256.
    const wifi = byName(list, 'wifi.txt')
    const sha = createHash('sha256').update(TOPICS['notes/wifi.txt']!).digest('hex')
    expect(wifi.path).toBe(`knowledge/${sha}.txt`)
    expect(existsSync(join(t.dataDir, wifi.path!))).toBe(true)

    const hits = ok(await t.client.call('knowledge.search', { kbIds: [base.id], query: 'what is the wifi password?', topK: 3 }))
    expect(hits[0]).toMatchObject({ fileName: 'wifi.txt', vectorRank: 1, textRank: 1 })
    const mars = ok(await t.client.call('knowledge.search', { kbIds: [base.id], query: 'tallest volcano', topK: 3 }))
    expect(mars[0]!.fileName).toBe('mars.md')
    expect(mars[0]!.heading).toBe('Mars')
    // Every searchable chunk has both a vector and a text row.
    expect(kb().repo.searchableCounts(base.id)).toEqual({ vectors: list.reduce((a, f) => a + f.chunksTotal, 0), text: list.reduce((a, f) => a + f.chunksTotal, 0) })
  })

  it('reads DOCX-less formats: HTML headings become chunk context', async () => {
    const base = await newBase('Web')
    const root = writeTree({ 'page.html': '<html><head><title>x</title><style>p{}</style></head><body><h2>Opening hours</h2><p>The museum opens at nine &amp; closes at five.</p><script>alert(1)</script></body></html>' })
    ok(await t.client.call('knowledge.addPaths', { kbId: base.id, paths: [join(root, 'page.html')] }))
    await kb().idle(base.id)
    const [hit] = ok(await t.client.call('knowledge.search', { kbIds: [base.id], query: 'when does the museum open', topK: 1 }))
    expect(hit).toMatchObject({ fileName: 'page.html', heading: 'Opening hours' })
    expect(hit!.text).toContain('opens at nine & closes at five')
    expect(hit!.text).not.toContain('alert')
  })

  it('bad inputs end in clear per-file states, and nothing of them is searchable', async () => {
    const base = await newBase('Bad')
    const root = writeTree({ 'empty.txt': '', 'binary.txt': new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0, 0, 0xff, 0x10]), 'good.md': '# Good\n\nThe harbour ferry leaves every forty minutes.' })
    ok(await t.client.call('knowledge.addPaths', { kbId: base.id, paths: [join(root, 'empty.txt'), join(root, 'binary.txt'), join(root, 'good.md'), join(root, 'missing.md')] }))
    await kb().idle(base.id)
    const list = await files(base.id)
    expect(byName(list, 'empty.txt')).toMatchObject({ status: 'Error', error: 'The file is empty.' })
    expect(byName(list, 'binary.txt')).toMatchObject({ status: 'Error', stage: 'failed' })
    expect(byName(list, 'binary.txt').error).toMatch(/binary file, not text/)
    expect(byName(list, 'missing.md')).toMatchObject({ status: 'Error' })
    expect(byName(list, 'missing.md').error).toMatch(/could not be opened \(ENOENT\)/)
    expect(byName(list, 'good.md').status).toBe('Success')
    expect(kb().repo.searchableCounts(base.id)).toEqual({ vectors: 1, text: 1 })
  })

  it('a 429 with Retry-After is a visible wait, not a failure, and nothing is embedded twice', async () => {
    const base = await newBase('Limited')
    fake.rateLimit(2, 1)
    const events: unknown[] = []
    const root = writeTree({ 'a.md': '# A\n\nAlpha centauri is the closest star system.' })
    ok(await t.client.call('knowledge.addPaths', { kbId: base.id, paths: [root] }))
    // The indexing run is a task of the hub (kind knowledge): attach to it like any other stream.
    const [active] = ok(await t.client.call('tasks.active', { kind: 'knowledge' }))
    expect(active).toMatchObject({ kind: 'knowledge', meta: { kbId: base.id } })
    t.core.router.hub.attach(active!.id, 0, { events: (batch) => events.push(...batch), end: () => undefined })
    await kb().idle(base.id)
    const waits = events.filter((e) => (e as { type: string }).type === 'waiting') as { retryInMs: number }[]
    expect(waits.map((w) => w.retryInMs)).toEqual([1000, 1000])
    expect(events.some((e) => (e as { type: string; file?: KnowledgeFile }).file?.stage === 'waiting')).toBe(true)
    expect((await files(base.id))[0]).toMatchObject({ status: 'Success', error: null })
    // Two refused requests, then one: the chunk with the self-check query riding along.
    expect(fake.requests).toBe(3)
    // The last input is the self-check query (a passage of the file itself).
    expect(fake.inputs.slice(0, -1)).toEqual(['# A\n\nAlpha centauri is the closest star system.'])
  })

  it('a model that returns other dimensions fails the file with both numbers, and stores nothing', async () => {
    const base = await newBase('Dims', { chunkSize: 100 })
    const root = writeTree({ 'first.md': 'Lighthouses guide ships at night along the rocky coast.' })
    ok(await t.client.call('knowledge.addPaths', { kbId: base.id, paths: [root] }))
    await kb().idle(base.id)
    expect(kb().repo.require(base.id).dimensions).toBe(64)
    fake.wrongDimensionsFrom(0, 32)
    const more = writeTree({ 'second.md': 'Glaciers carve valleys over thousands of years.' })
    ok(await t.client.call('knowledge.addPaths', { kbId: base.id, paths: [more] }))
    await kb().idle(base.id)
    const second = byName(await files(base.id), 'second.md')
    expect(second.status).toBe('Error')
    expect(second.error).toMatch(/returned vectors of 32 dimensions, but this knowledge base holds vectors of 64 dimensions/)
    expect(kb().repo.searchableCounts(base.id)).toEqual({ vectors: 1, text: 1 })
    // Process again once the provider behaves: it completes.
    fake.reset()
    ok(await t.client.call('knowledge.retryFile', { fileId: second.id }))
    await kb().idle(base.id)
    expect(byName(await files(base.id), 'second.md')).toMatchObject({ status: 'Success', error: null })
  })

  it('an embedding service failing halfway leaves the file unsearchable and resumable: no chunk embedded twice, none skipped', async () => {
    const base = await newBase('Halfway', { chunkSize: 120 })
    const long = Array.from({ length: 40 }, (_, i) => `Paragraph ${i} describes the quarry number ${i} and its granite.`).join('\n\n')
    const root = writeTree({ 'quarries.md': long })
    const small = kb()
    ;(small as unknown as { deps: { batchSize: number } }).deps.batchSize = 8
    fake.failFrom(2)
    ok(await t.client.call('knowledge.addPaths', { kbId: base.id, paths: [root] }))
    await small.idle(base.id)
    const failed = (await files(base.id))[0]!
    expect(failed.status).toBe('Error')
    expect(failed.error).toMatch(/server had an error|500/i)
    expect(failed.chunksDone).toBe(16)
    expect(failed.chunksTotal).toBeGreaterThan(16)
    expect(kb().repo.searchableCounts(base.id)).toEqual({ vectors: 0, text: 0 })
    fake.reset()
    expect(ok(await t.client.call('knowledge.search', { kbIds: [base.id], query: 'granite quarry', topK: 5 }))).toEqual([])

    // Resume: only the missing chunks are sent.
    fake.reset()
    kb().repo.setState(failed.id, { status: 'Pending', stage: 'queued', error: null })
    kb().schedule(base.id)
    await small.idle(base.id)
    ;(small as unknown as { deps: { batchSize?: number } }).deps.batchSize = undefined
    const done = (await files(base.id))[0]!
    expect(done).toMatchObject({ status: 'Success', chunksDone: failed.chunksTotal })
    const chunkInputs = fake.inputs.slice(0, -1) // the last is the self-check query
    expect(chunkInputs).toHaveLength(failed.chunksTotal - 16)
    expect(new Set(chunkInputs).size).toBe(chunkInputs.length)
    expect(kb().repo.searchableCounts(base.id)).toEqual({ vectors: failed.chunksTotal, text: failed.chunksTotal })
  })

  it('flags files the self-check cannot find (near-identical copies)', async () => {
    const base = await newBase('Copies')
    // The self-check query is the first 24 words of a passage: identical in every copy.
    const body = 'This quarterly report template has sections for revenue, costs and outlook, filled in by each team before the end of the month and sent to finance for review.'
    const tree: Record<string, string> = {}
    for (let i = 0; i < 14; i++) tree[`report-${String(i).padStart(2, '0')}.txt`] = `${body} Team ${i}.`
    ok(await t.client.call('knowledge.addPaths', { kbId: base.id, paths: [writeTree(tree)] }))
    await kb().idle(base.id)
    const list = await files(base.id)
    const flagged = list.filter((f) => f.flagged)
    expect(flagged.length).toBeGreaterThan(0)
    expect(flagged[0]!.flagged).toMatch(/did not find it among the top 10/)
    expect(flagged[0]!.status).toBe('Success')
  })

  it('a file that changes while it is read is refused with a reason; removing a file removes its chunks, vectors and stored copy', async () => {
    const base = await newBase('Changes')
    const root = writeTree({ 'live.md': 'first version' })
    const path = join(root, 'live.md')
    // Simulate a writer: change the file between our two looks at it.
    const service = kb()
    let toggle = 0
    const timer = setInterval(() => writeFileSync(path, `version ${toggle++} `.repeat(200_000)), 1)
    try {
      let refused: KnowledgeFile | undefined
      for (let i = 0; i < 50 && !refused; i++) {
        const f = await service.addFile(base.id, path)
        if (f.status === 'Error' && f.error?.includes('changed while it was being read')) refused = f
      }
      expect(refused?.error).toBe('The file changed while it was being read. Process it again once it is saved.')
    } finally {
      clearInterval(timer)
    }
    await service.idle(base.id)
    // The refused copies were streamed aside under the data folder: none is left there.
    expect(readdirSync(join(t.dataDir, 'knowledge')).filter((n) => n.endsWith('.tmp'))).toEqual([])

    const other = writeTree({ 'keep.md': 'Owls hunt at night.', 'drop.md': 'Bats navigate by echolocation.' })
    ok(await t.client.call('knowledge.addPaths', { kbId: base.id, paths: [other] }))
    await service.idle(base.id)
    const drop = byName(await files(base.id), 'drop.md')
    const before = service.repo.searchableCounts(base.id)
    expect(ok(await t.client.call('knowledge.removeFile', { fileId: drop.id }))).toBe(true)
    expect(service.repo.searchableCounts(base.id)).toEqual({ vectors: before.vectors - 1, text: before.text - 1 })
    expect(existsSync(join(t.dataDir, drop.path!))).toBe(false)
    const hits = ok(await t.client.call('knowledge.search', { kbIds: [base.id], query: 'bats echolocation', topK: 5 }))
    expect(hits.map((h) => h.fileName)).not.toContain('drop.md')
  })

  it('renames, changes the embedding model (re-embeds everything) and deletes a base', async () => {
    const base = await newBase('Rename me')
    ok(await t.client.call('knowledge.addPaths', { kbId: base.id, paths: [writeTree({ 'x.md': 'Penguins live in the southern hemisphere.' })] }))
    await kb().idle(base.id)
    expect(ok(await t.client.call('knowledge.update', { id: base.id, name: 'Renamed' })).name).toBe('Renamed')
    fake.reset()
    ok(await t.client.call('knowledge.update', { id: base.id, modelId: 'text-embedding-3-large' }))
    await kb().idle(base.id)
    expect((await files(base.id))[0]).toMatchObject({ status: 'Success' })
    expect(fake.inputs[0]).toBe('Penguins live in the southern hemisphere.')
    expect(ok(await t.client.call('knowledge.delete', { id: base.id }))).toBe(true)
    expect(ok(await t.client.call('knowledge.list', {})).some((b) => b.id === base.id)).toBe(false)
  })

  it('an upload named by its transfer (browser mode) is streamed from the transfer file, which is then removed', async () => {
    const base = await newBase('Uploads')
    const { id, path } = newTransfer(t.dataDir)
    writeFileSync(path, 'Emperor penguins huddle through the Antarctic winter.')
    const file = ok(await t.client.call('knowledge.upload', { kbId: base.id, name: 'penguins.md', transferId: id }))
    expect(file).toMatchObject({ name: 'penguins.md', source: 'upload:penguins.md', status: 'Pending' })
    expect(existsSync(path)).toBe(false)
    await kb().idle(base.id)
    expect(byName(await files(base.id), 'penguins.md').status).toBe('Success')
    // A transfer that is not there, or both forms at once, are refused with a reason.
    const gone = await t.client.call('knowledge.upload', { kbId: base.id, name: 'x.md', transferId: id })
    expect(!gone.ok && gone.error.message).toBe('The upload is no longer there; choose the file again.')
  })

  it('the desktop fills a transfer piece by piece over the bridge (bytes, not base64), within the upload limits', async () => {
    const base = await newBase('Desktop uploads')
    const { transferId } = ok(await t.client.call('files.transferCreate', {}))
    const text = 'King penguins raise one chick over more than a year. '
    const bytes = new TextEncoder().encode(text)
    ok(await t.client.call('files.transferAppend', { transferId, chunk: bytes.slice(0, 20) }))
    expect(ok(await t.client.call('files.transferAppend', { transferId, chunk: bytes.slice(20) })).bytes).toBe(bytes.length)
    const file = ok(await t.client.call('knowledge.upload', { kbId: base.id, name: 'king.md', transferId }))
    await kb().idle(base.id)
    expect(byName(await files(base.id), 'king.md')).toMatchObject({ id: file.id, status: 'Success', size: bytes.length })
    // Bytes only: a base64 string is refused by the contract, and a piece over 8 MB too.
    const other = ok(await t.client.call('files.transferCreate', {})).transferId
    const asText = await t.client.call('files.transferAppend', { transferId: other, chunk: 'eA==' as unknown as Uint8Array<ArrayBuffer> })
    expect(asText.ok).toBe(false)
    const huge = await t.client.call('files.transferAppend', { transferId: other, chunk: new Uint8Array(8 * 1024 * 1024 + 1) })
    expect(!huge.ok && huge.error.message).toMatch(/at most 8 MB/)
    // A transfer that was never made is refused with the way out.
    const unknown = await t.client.call('files.transferAppend', { transferId: 'nosuchtransfer01', chunk: bytes })
    expect(!unknown.ok && unknown.error.message).toBe('The upload is no longer there; choose the file again.')
  })

  // Restoring a backup in place (issue 16) with knowledge bases in it: files the backup holds as
  // waiting are indexed after the restore, as a start-up would, and search answers from the restored data.
  it('files that were waiting in a restored backup are indexed, and search finds them', async () => {
    const base = await newBase('Restored')
    // A slow embedding service: the backup is made while every file still waits.
    fake.delay(1500)
    ok(await t.client.call('knowledge.addPaths', { kbId: base.id, paths: [writeTree(TOPICS)] }))
    const backup = ok(await t.client.call('data.backups.create', {}))
    fake.delay(0)
    await kb().idle(base.id)
    expect((await files(base.id)).every((f) => f.status === 'Success')).toBe(true)

    ok(await t.client.call('data.backups.restore', { at: backup.at }))
    await kb().idle(base.id)
    const after = await files(base.id)
    expect(after).toHaveLength(Object.keys(TOPICS).length)
    expect(after.map((f) => [f.name, f.status])).toEqual(after.map((f) => [f.name, 'Success']))
    const hits = ok(await t.client.call('knowledge.search', { kbIds: [base.id], query: 'what is the office wifi password?' }))
    expect(hits[0]?.fileName).toBe('wifi.txt')
  })
})
