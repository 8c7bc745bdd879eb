// Child of the kill-mid-import test: imports a file through the real core and reports
// progress on stdout until the parent kills it.
import { writeSync } from 'node:fs'
import { createCore } from '../../../src/core'
import { MemoryBackend } from '../../../src/core/secrets'
import { createInProcessClient } from '../../../src/core/bridge/in-process'

const [dataDir, file] = process.argv.slice(2) as [string, string]
const say = (record: object) => {
  let bytes = Buffer.from(JSON.stringify(record) + '\n')
  while (bytes.length > 0) {
    try {
      bytes = bytes.subarray(writeSync(1, bytes))
    } catch (error) {
      if ((error as { code?: string }).code !== 'EAGAIN') throw error
    }
  }
}
// Built by hand, not through tests/integration/test-core.ts: this child process is the test subject (the parent kills it mid-import).
const core = createCore({ dataDir, mode: 'test', secrets: { backend: new MemoryBackend() } })
await core.context.init.start()
const { client } = createInProcessClient(core.router)
client.stream('data.importFile', { path: file }, {
  onEvent: (progress) => say(progress),
  onEnd: (result) => say({ end: result.ok })
})
