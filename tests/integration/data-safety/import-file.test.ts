import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { MemoryBackend } from '../../../src/core/secrets'
import { openStore } from '../../../src/core/store'
import type { Result } from '../../../src/shared/errors/app-error'
import type { StreamHandlers } from '../../../src/shared/bridge/client'
import { writeBigExport } from './big-export'
import { startTestCore, type TestCore } from '../test-core'

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})
const temp = () => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-import-'))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

async function startCore(dataDir: string) {
  const { core, client, state } = await startTestCore('sb-import-', { dataDir, secrets: { backend: new MemoryBackend() } })
  cleanups.push(() => core.close())
  expect(state.phase).toBe('ready')
  return { core, client }
}

function runStream<E, R>(client: TestCore['client'], proc: 'data.importFile' | 'data.exportFile', input: object, onEvent?: (e: E, cancel: () => void) => void) {
  return new Promise<{ events: E[]; result: Result<R> }>((resolve) => {
    const events: E[] = []
    const start = client.stream as unknown as (proc: string, input: object, handlers: StreamHandlers<unknown, unknown>) => { cancel(): void }
    const handle = start(proc, input, {
      onEvent: (e) => {
        events.push(e as E)
        onEvent?.(e as E, () => handle.cancel())
      },
      onEnd: (result) => resolve({ events, result: result as Result<R> }),
      onRefused: (error) => resolve({ events, result: { ok: false, error } })
    })
  })
}

describe('import and export files at real sizes', () => {
  it('exports to a file and imports it elsewhere, with progress; the counts match', async () => {
    const source = await startCore(join(temp(), 'a'))
    const file = join(temp(), 'in.json')
    writeBigExport(file, 3000)
    const first = await runStream<{ phase: string }, { added: { messages: number } }>(source.client, 'data.importFile', { path: file })
    expect(first.result.ok && first.result.value.added.messages).toBe(3000)

    const exported = join(temp(), 'out.json')
    const out = await runStream<{ phase: string }, { bytes: number; damaged: unknown[] }>(source.client, 'data.exportFile', { path: exported })
    if (!out.result.ok) throw new Error(out.result.error.message)
    expect(out.result.value.damaged).toEqual([])
    expect(readFileSync(exported).length).toBe(out.result.value.bytes)
    // Exporting never overwrites a file (nor writes anything but a .json file).
    const again = await runStream(source.client, 'data.exportFile', { path: exported })
    expect(!again.result.ok && again.result.error.message).toMatch(/never overwritten/)
    expect(readFileSync(exported).length).toBe(out.result.value.bytes)

    const target = await startCore(join(temp(), 'b'))
    const imported = await runStream<{ phase: string }, { added: { messages: number; conversations: number } }>(target.client, 'data.importFile', { path: exported })
    if (!imported.result.ok) throw new Error(imported.result.error.message)
    expect(imported.result.value.added).toMatchObject({ messages: 3000, conversations: 30 })
    expect(target.core.services().store.messages.count()).toBe(3000)
    expect(imported.events.length).toBeGreaterThan(0)
    // The same file through the store's one-transaction import gives the same result (the formats are one).
    const third = await startCore(join(temp(), 'c'))
    expect(third.core.services().store.import(readFileSync(exported, 'utf8')).added.messages).toBe(3000)
  })

  it('a cancelled import leaves the database exactly as before', async () => {
    const { core, client } = await startCore(join(temp(), 'd'))
    const before = core.services().store.export('t').data
    const file = join(temp(), 'in.json')
    writeBigExport(file, 20_000)
    let cancelled = false
    const run = await runStream<{ phase: string; done: number }, unknown>(client, 'data.importFile', { path: file }, (progress, cancel) => {
      if (!cancelled && progress.phase === 'importing' && progress.done > 0) {
        cancelled = true
        cancel()
      }
    })
    expect(cancelled).toBe(true)
    expect(run.result.ok).toBe(false)
    expect(!run.result.ok && run.result.error.message).toMatch(/cancelled\. Nothing was changed/)
    expect(core.services().store.export('t').data).toEqual(before)
  })

  it('browser mode does not read or write server paths', async () => {
    const dataDir = join(temp(), 'e')
    const { core, client } = await startTestCore('sb-import-', { dataDir, mode: 'browser', secrets: { backend: new MemoryBackend() } })
    cleanups.push(() => core.close())
    const run = await runStream(client, 'data.importFile', { path: '/etc/passwd' })
    expect(!run.result.ok && run.result.error.message).toMatch(/upload the file/)
    const out = await runStream(client, 'data.exportFile', { path: join(dataDir, 'x.json') })
    expect(!out.result.ok && out.result.error.message).toMatch(/upload the file|instead of giving a path/)
  })

  it('a process killed mid-import leaves the database as before (undone at the next start)', async () => {
    const dataDir = join(temp(), 'f')
    const seeded = openStore({ dataDir, dailyBackupMs: 0 })
    const agent = seeded.store.agents.create({ name: 'Mine' })
    const conversation = seeded.store.conversations.create({ agentId: agent.id, title: 'Mine' })
    seeded.store.messages.create({ conversationId: conversation.id, role: 'user', content: [{ type: 'text', text: 'kept' }] })
    const before = seeded.store.export('t').data
    seeded.store.close()
    const file = join(temp(), 'in.json')
    writeBigExport(file, 60_000)

    const written = await new Promise<number>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'import-kill-child.ts'), dataDir, file], { stdio: ['ignore', 'pipe', 'pipe'] })
      let out = ''
      let err = ''
      let done = 0
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString()
        for (const line of out.split('\n').slice(0, -1)) {
          const progress = JSON.parse(line) as { phase?: string; done?: number; total?: number }
          if (progress.phase === 'importing' && (progress.done ?? 0) > 5000 && done === 0) {
            done = progress.done!
            child.kill('SIGKILL')
          }
        }
        out = out.slice(out.lastIndexOf('\n') + 1)
      })
      child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()))
      child.on('exit', (_code, signal) => (signal === 'SIGKILL' ? resolve(done) : reject(new Error(`the child was not killed mid-import: ${err}`))))
    })
    expect(written).toBeGreaterThan(5000)
    // Rows really were committed before the kill…
    const raw = await import('better-sqlite3')
    const peek = new raw.default(join(dataDir, 'switchboard.db'), { readonly: true })
    expect((peek.prepare('SELECT count(*) AS n FROM messages').get() as { n: number }).n).toBeGreaterThan(1)
    peek.close()
    // …and the next start takes them out again.
    const { store, notices } = openStore({ dataDir, dailyBackupMs: 0 })
    cleanups.push(() => store.close())
    expect(notices.join(' ')).toMatch(/An import was interrupted.*as it was before the import/)
    expect(store.export('t').data).toEqual(before)
  }, 120_000)
})
