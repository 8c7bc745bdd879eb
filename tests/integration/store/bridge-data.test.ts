import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { Core } from '../../../src/core'
import { MemoryBackend, type KeyringBackend } from '../../../src/core/secrets'
import { databasePath } from '../../../src/core/store'
import { LATEST_SCHEMA_VERSION } from '../../../src/core/store/migrations'
import type { ImportReport } from '../../../src/shared/data/export-file'
import { streamResult } from '../stream-result'
import { startTestCore } from '../test-core'

let core: Core | undefined
let dir: string | undefined
afterEach(async () => {
  await core?.close()
  core = undefined
  if (dir) rmSync(dir, { recursive: true, force: true })
})

async function start(backend: KeyringBackend = new MemoryBackend(), dataDir?: string) {
  dir = dataDir ?? mkdtempSync(join(tmpdir(), 'sb-core-'))
  const app = await startTestCore('sb-core-', { dataDir: dir, secrets: { backend } })
  core = app.core
  return { client: app.client, ready: app.state, core }
}

describe('data and keys over the bridge', () => {
  it('start-up goes through migrating to ready and the data procedures work end to end', async () => {
    const { client, ready, core } = await start()
    expect(ready.phase).toBe('ready')
    expect(core.context.init.states.map((s) => s.phase)).toContain('migrating')
    const agent = await client.call('data.agents.create', { name: 'Coder', tags: ['dev'] })
    if (!agent.ok) throw new Error(agent.error.message)
    const conversation = await client.call('data.conversations.create', { agentId: agent.value.id, title: 'Bugs' })
    if (!conversation.ok) throw new Error(conversation.error.message)
    core.services().store.messages.create({ conversationId: conversation.value.id, role: 'user', content: [{ type: 'text', text: 'segfault in the parser' }] })
    const page = await client.call('chat.messages', { conversationId: conversation.value.id })
    expect(page.ok && page.value.map((m) => m.content)).toEqual([[{ type: 'text', text: 'segfault in the parser' }]])
    const hits = await client.call('data.search', { query: 'parser', scope: { kind: 'agent', agentId: agent.value.id } })
    expect(hits.ok && hits.value[0]!.snippet.filter((r) => r.match).map((r) => r.text)).toEqual(['parser'])
    const path = join(dir!, 'export.json')
    const exported = await streamResult<{ fileName: string }>(client, 'data.exportFile', { path })
    if (!exported.ok) throw new Error(exported.error.message)
    expect(exported.value.fileName).toMatch(/^switchboard-export-\d{4}-\d{2}-\d{2}\.json$/)
    const reimport = await streamResult<ImportReport>(client, 'data.importFile', { path })
    expect(reimport.ok && reimport.value.skipped.messages).toBe(1)
  })

  it('errors cross as plain data that say what to do', async () => {
    const { client } = await start()
    const missing = await client.call('data.agents.get', { id: 'nope' })
    expect(missing).toMatchObject({ ok: false, error: { errorType: 'NotFound', status: 404 } })
    const cut = join(dir!, 'cut-short.json')
    writeFileSync(cut, '{"format":"switchboard-export","vers')
    const truncated = await streamResult(client, 'data.importFile', { path: cut })
    expect(truncated).toMatchObject({ ok: false, error: { errorType: 'ImportFailed', message: expect.stringMatching(/^Import failed:/) } })
    const secretSetting = await client.call('data.settings.set', { patch: { openaiApiKey: 'sk-x' } } as never)
    expect(secretSetting).toMatchObject({ ok: false, error: { message: expect.stringMatching(/keychain/) } })
  })

  it('a database from a newer version stops start-up at error with the reason, and retry works once fixed', async () => {
    dir = mkdtempSync(join(tmpdir(), 'sb-core-'))
    // A header claiming schema 999: what a newer Switchboard would leave.
    const first = (await startTestCore('sb-core-', { dataDir: dir, secrets: { backend: new MemoryBackend() } })).core
    await first.close()
    const BetterSqlite3 = (await import('better-sqlite3')).default
    const raw = new BetterSqlite3(databasePath(dir))
    raw.pragma('user_version = 999')
    raw.close()
    const app = await startTestCore('sb-core-', { dataDir: dir, secrets: { backend: new MemoryBackend() } })
    core = app.core
    const failed = app.state
    expect(failed).toMatchObject({ phase: 'error', detail: expect.stringMatching(/newer version of Switchboard.*Upgrade/) })
    const { client } = app
    expect(await client.call('data.agents.list', {})).toMatchObject({ ok: false, error: { errorType: 'DataNotReady', message: expect.stringMatching(/Retry/) } })
    const fix = new BetterSqlite3(databasePath(dir))
    // Back to the version the file really has (its tables are already the latest schema).
    fix.pragma(`user_version = ${LATEST_SCHEMA_VERSION}`)
    fix.close()
    expect((await client.call('app.retryInit', {})).ok && core.context.init.state.phase).toBe('ready')
    expect((await client.call('data.agents.list', {})).ok).toBe(true)
  })

  it('reports keys held in memory as a start-up notice and on every provider of providers.list', async () => {
    const broken: KeyringBackend = {
      get: async () => {
        throw new Error('DBus error: org.freedesktop.DBus.Error.ServiceUnknown')
      },
      set: async () => undefined,
      delete: async () => false
    }
    const { client, ready } = await start(broken)
    expect(ready.notices?.join(' ')).toMatch(/in memory for this session/)
    const list = await client.call('providers.list', {})
    if (!list.ok) throw new Error(list.error.message)
    expect(list.value.providers.length).toBeGreaterThan(0)
    expect(list.value.providers.every((p) => p.keyPersistent === false)).toBe(true)
  })

  it('the renderer can set a key and learn only { hasKey, last4 }, through the one key setter', async () => {
    const { client, core } = await start()
    const key = `sk-${randomBytes(16).toString('hex')}`
    const set = await client.call('providers.setKey', { providerId: 'openai', apiKey: key })
    expect(set).toMatchObject({ ok: true, value: { id: 'openai', hasKey: true, last4: key.slice(-4), keyPersistent: true } })
    const list = await client.call('providers.list', {})
    if (!list.ok) throw new Error(list.error.message)
    expect(list.value.providers.find((p) => p.id === 'openai')).toMatchObject({ hasKey: true, last4: key.slice(-4) })
    expect(list.value.providers.find((p) => p.id === 'anthropic')).toMatchObject({ hasKey: false })
    expect(await core.services().secrets.readForRuntime('openai')).toBe(key)
    // One procedure sets a key: no second spelling (secrets.set) that skips the provider's rules.
    expect(Object.keys(core.router.contract).filter((p) => /^secrets\.|^data\.providers\./.test(p))).toEqual([])
    const setters = Object.keys(core.router.contract).filter((p) => /setKey|secrets\.set/.test(p))
    expect(setters).toEqual(['providers.setKey'])
    const bad = await client.call('providers.setKey', { providerId: 'Bad Id!', apiKey: key })
    expect(bad.ok).toBe(false)
    expect(JSON.stringify(bad)).not.toContain(key)
    expect((await client.call('providers.removeKey', { providerId: 'openai' })).ok).toBe(true)
    expect(await core.services().secrets.readForRuntime('openai')).toBeUndefined()
  })

  it('a corrupt database is restored from the newest backup at start-up and the user is told', async () => {
    dir = mkdtempSync(join(tmpdir(), 'sb-core-'))
    const first = await start(new MemoryBackend(), dir)
    first.core.services().store.agents.create({ name: 'Survivor' })
    // Force the start-up backup, then damage the file.
    const { makeBackup } = await import('../../../src/core/store/backup')
    makeBackup(first.core.services().store.db.sqlite, dir, 'daily', 1)
    first.core.services().store.backups?.stop() // no backup on quit: the test needs a change the backup lacks
    first.core.services().store.agents.create({ name: 'After the backup' })
    await first.core.close()
    core = undefined
    writeFileSync(databasePath(dir), Buffer.alloc(4096, 7))
    const second = await start(new MemoryBackend(), dir)
    expect(second.ready.phase).toBe('ready')
    expect(second.ready.notices?.join(' ')).toMatch(/damaged.*restored the backup/)
    const agents = await second.client.call('data.agents.list', {})
    const names = agents.ok ? agents.value.map((a) => a.name) : []
    expect(names).toContain('Survivor')
    expect(names).not.toContain('After the backup')
  })
})
