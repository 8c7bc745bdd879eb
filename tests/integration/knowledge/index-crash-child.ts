// Child process of the indexing crash test: indexes a folder until it is killed. After each
// batch of vectors is committed it prints the ids of the chunks that batch stored.
import { writeSync } from 'node:fs'
import { headlessKnowledge } from '../../../src/core/knowledge/headless'
import { createProviderRuntime } from '../../../src/core/runtime/registry'
import { openStore } from '../../../src/core/store'

const [dataDir, baseURL, folder] = process.argv.slice(2) as [string, string, string]
const ack = (record: object) => writeSync(1, JSON.stringify(record) + '\n')

const { store } = openStore({ dataDir, dailyBackupMs: 0 })
const runtime = createProviderRuntime('openai', { apiKey: 'sk-crash-0123456789', baseURL })
let lastDone = new Map<string, number>()
const { knowledge } = headlessKnowledge(store, async () => runtime, {
  batchSize: 4,
  afterBatch: async () => {
    const done = new Map(knowledge.repo.files(kb.id).map((f) => [f.id, f.chunksDone]))
    ack({ kind: 'batch', done: Object.fromEntries(done) })
    lastDone = done
  }
})
const kb = knowledge.list()[0] ?? knowledge.create({ name: 'Crash', providerId: 'openai', modelId: 'text-embedding-3-small', chunkSize: 300, chunkOverlap: 0 })
if (knowledge.repo.files(kb.id).length === 0) await knowledge.addPaths(kb.id, [folder])
else knowledge.resume()
ack({ kind: 'ready' })
await knowledge.idle(kb.id)
void lastDone
ack({ kind: 'idle' })
