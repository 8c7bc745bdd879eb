import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { FileDialog } from '../../../src/core/context'
import { MemoryBackend } from '../../../src/core/secrets'
import type { StreamHandlers } from '../../../src/shared/bridge/client'
import type { DataTransferProgress } from '../../../src/shared/bridge/procedures/data'
import type { Result } from '../../../src/shared/errors/app-error'
import { startTestCore, type TestCore } from '../test-core'

// Issue 13: the desktop imports and exports by streaming to and from a file the user picks in
// the shell's dialog (data.choosePath), never one IPC message holding the whole file. The
// dialog itself is Electron's (it cannot run here); `FileDialog` is the seam the shell fills,
// and its policy is tested in tests/unit/shell/file-dialog.test.ts.

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

async function start(mode: 'desktop' | 'browser', fileDialog?: FileDialog) {
  const dir = mkdtempSync(join(tmpdir(), 'sb-desktop-dialog-'))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  const { core, client } = await startTestCore('sb-desktop-dialog-', { dataDir: join(dir, 'data'), mode, secrets: { backend: new MemoryBackend() }, ...(fileDialog ? { fileDialog } : {}) })
  cleanups.push(() => core.close())
  return { dir, core, client }
}

const runStream = <R>(client: TestCore['client'], proc: string, input: object) =>
  new Promise<{ end: Result<R>; progress: DataTransferProgress[] }>((resolve) => {
    const progress: DataTransferProgress[] = []
    const stream = client.stream as unknown as (p: string, i: object, h: StreamHandlers<unknown, unknown>) => void
    stream(proc, input, {
      onEvent: (e) => progress.push(e as DataTransferProgress),
      onEnd: (end) => resolve({ end: end as Result<R>, progress }),
      onRefused: (error) => resolve({ end: { ok: false, error }, progress })
    })
  })

function ok<T>(result: Result<T>): T {
  if (!result.ok) throw new Error(`${result.error.errorType}: ${result.error.message}`)
  return result.value
}

describe('desktop import and export through the shell’s file dialog', () => {
  it('exports to the chosen file as a stream with progress, and another app imports it from the chosen file', async () => {
    const asked: Array<{ purpose: string; name: string }> = []
    let folder = ''
    const source = await start('desktop', {
      choose: async (purpose, name) => {
        asked.push({ purpose, name })
        return join(folder, name)
      }
    })
    folder = source.dir
    const store = source.core.services().store
    const agent = store.agents.create({ name: 'Kept' })
    const conversation = store.conversations.create({ agentId: agent.id, title: 'Kept chat' })
    for (let i = 0; i < 50; i++) store.messages.create({ conversationId: conversation.id, role: 'user', content: [{ type: 'text', text: `message ${i}` }] })

    const target = ok(await source.client.call('data.choosePath', { purpose: 'export' }))
    expect(asked).toEqual([{ purpose: 'export', name: expect.stringMatching(/^switchboard-export-\d{4}-\d{2}-\d{2}\.json$/) }])
    const exported = await runStream<{ path?: string; bytes: number }>(source.client, 'data.exportFile', { path: target!.path })
    expect(ok(exported.end).path).toBe(target!.path)
    expect(exported.progress.some((p) => p.phase === 'exporting')).toBe(true)
    expect(JSON.parse(readFileSync(target!.path, 'utf8')).data.messages).toHaveLength(50)

    const other = await start('desktop', { choose: async () => target!.path })
    const picked = ok(await other.client.call('data.choosePath', { purpose: 'import' }))
    const preview = await runStream<{ added: { messages: number } }>(other.client, 'data.importFile', { path: picked!.path, dryRun: true })
    expect(ok(preview.end).added.messages).toBe(50)
    const imported = await runStream<{ added: { messages: number } }>(other.client, 'data.importFile', { path: picked!.path })
    expect(ok(imported.end).added.messages).toBe(50)
    expect(other.core.services().store.messages.count()).toBe(50)
  })

  it('a cancelled dialog is null and writes nothing; browser mode has no dialog and says so', async () => {
    const desktop = await start('desktop', { choose: async () => undefined })
    expect(ok(await desktop.client.call('data.choosePath', { purpose: 'export' }))).toBeNull()
    expect(existsSync(join(desktop.dir, 'data', 'transfers'))).toBe(false)
    const browser = await start('browser')
    const refused = await browser.client.call('data.choosePath', { purpose: 'import' })
    expect(refused).toMatchObject({ ok: false, error: { errorType: 'ValidationError', message: expect.stringMatching(/Only the desktop app has a file dialog/) } })
  })
})
