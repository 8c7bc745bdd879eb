import { afterAll, describe, expect, it } from 'vitest'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MemoryBackend } from '../../../src/core/secrets'
import type { Result } from '../../../src/shared/errors/app-error'
import { startTestCore, type TestCore } from '../test-core'

// Every data folder makes its own default agent ("Just Chat") on first start. Importing a file
// from another folder merges that agent into this one's instead of adding a second "Just Chat".
const apps: TestCore[] = []
afterAll(async () => {
  for (const app of apps) await app.close()
})
const ok = <T>(r: Result<T>): T => {
  if (!r.ok) throw new Error(`${r.error.errorType}: ${r.error.message}`)
  return r.value
}
async function start() {
  const app = await startTestCore('sb-import-agent-', { secrets: { backend: new MemoryBackend() } })
  apps.push(app)
  return app.client
}
const streamed = <T>(start: (h: { onEvent(): void; onEnd(r: Result<T>): void }) => unknown) =>
  new Promise<Result<T>>((resolve) => start({ onEvent: () => undefined, onEnd: resolve }))

describe('import into a fresh data folder', () => {
  it('puts the conversations under the default agent here: one "Just Chat", not two', async () => {
    const from = await start()
    const fromDefault = ok(await from.call('chat.sidebar', {})).defaultAgentId
    const helper = ok(await from.call('data.agents.create', { name: 'Helper', systemPrompt: 'Help.' }))
    ok(await from.call('data.conversations.create', { agentId: fromDefault, title: 'Plain chat one' }))
    ok(await from.call('data.conversations.create', { agentId: fromDefault, title: 'Plain chat two' }))
    ok(await from.call('data.conversations.create', { agentId: helper.id, title: 'Helped' }))
    const file = join(mkdtempSync(join(tmpdir(), 'sb-import-agent-file-')), 'export.json')
    ok(await streamed((h) => from.stream('data.exportFile', { path: file }, h as never)))

    const into = await start()
    const intoDefault = ok(await into.call('chat.sidebar', {})).defaultAgentId
    const report = ok(await streamed<{ added: { agents: number; conversations: number } }>((h) => into.stream('data.importFile', { path: file }, h as never)))
    expect(report.added).toMatchObject({ agents: 1, conversations: 3 })
    const agents = ok(await into.call('data.agents.list', {}))
    expect(agents.map((a) => a.name).sort()).toEqual(['Helper', 'Just Chat'])
    const plain = ok(await into.call('data.conversations.list', { agentId: intoDefault }))
    expect(plain.map((c) => c.title).sort()).toEqual(['Plain chat one', 'Plain chat two'])
    expect(ok(await into.call('chat.sidebar', {})).defaultAgentId).toBe(intoDefault)
  })
})
