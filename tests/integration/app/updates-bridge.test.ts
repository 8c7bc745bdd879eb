import { afterEach, describe, expect, it } from 'vitest'
import type { UpdaterPort } from '../../../src/core/bridge/handlers/updates'
import { MemoryBackend } from '../../../src/core/secrets'
import type { UpdateStatus } from '../../../src/shared/bridge/procedures/updates'
import { startTestCore, type TestCore } from '../test-core'

// app.update.* and app.commandLine.*: the core passes the shell's updater through; without one
// (browser mode, the CLI) every procedure answers plainly that updates are not available here.
const cores: TestCore[] = []
afterEach(async () => {
  await Promise.all(cores.splice(0).map((c) => c.close()))
})

/** A core left unstarted: the update procedures answer without start-up. */
async function start(updater?: UpdaterPort) {
  const app = await startTestCore('sb-updates-', { start: false, mode: updater ? 'desktop' : 'browser', secrets: { backend: new MemoryBackend() }, ...(updater ? { updater } : {}) })
  cores.push(app)
  return app.client
}

/** A port that behaves like the shell's: check finds 0.2.0, download reports progress, then downloaded. */
function fakeUpdater() {
  let status: UpdateStatus = { phase: 'idle', mode: 'notify', currentVersion: '0.1.0' }
  const listeners = new Set<(s: UpdateStatus) => void>()
  const set = (next: Partial<UpdateStatus>) => {
    status = { ...status, ...next }
    for (const l of listeners) l(status)
    return status
  }
  const calls: string[] = []
  const port: UpdaterPort = {
    status: () => status,
    subscribe: (l) => (listeners.add(l), () => listeners.delete(l)),
    check: async () => set({ phase: 'available', version: '0.2.0' }),
    download: async () => {
      for (const percent of [10, 60, 100]) set({ phase: 'downloading', percent })
      return set({ phase: 'downloaded' })
    },
    restart: () => void calls.push('restart'),
    setMode: (mode) => set({ mode }),
    commandLine: { status: () => ({ available: true, installed: false, file: '/home/u/.local/bin/switchboard', onPath: true }), install: async () => ({ available: true, installed: true, file: '/home/u/.local/bin/switchboard', onPath: true }) }
  }
  return { port, calls, listeners }
}

describe('updates through the bridge', () => {
  it('browser mode: the status says not available, and every action refuses in words', async () => {
    const client = await start()
    const events: UpdateStatus[] = []
    const ended = await new Promise((resolve) => client.stream('app.update.status', {}, { onEvent: (e) => events.push(e), onEnd: resolve }))
    expect(ended).toMatchObject({ ok: true })
    expect(events).toEqual([expect.objectContaining({ phase: 'unavailable', message: expect.stringContaining('Only the installed desktop app updates itself') })])
    for (const proc of ['app.update.check', 'app.update.download', 'app.update.restart', 'app.commandLine.install'] as const) {
      const r = await client.call(proc, {})
      expect(r, proc).toMatchObject({ ok: false, error: { errorType: 'UpdatesUnavailable' } })
    }
    expect(await client.call('app.update.setMode', { mode: 'off' })).toMatchObject({ ok: false, error: { errorType: 'UpdatesUnavailable' } })
    expect(await client.call('app.commandLine.status', {})).toMatchObject({ ok: true, value: { available: false, advice: expect.stringContaining('npx switchboard') } })
  })

  it('desktop: the status streams check, download progress and downloaded; restart reaches the shell; the stream stops listening when cancelled', async () => {
    const { port, calls, listeners } = fakeUpdater()
    const client = await start(port)
    const events: UpdateStatus[] = []
    const handle = client.stream('app.update.status', {}, { onEvent: (e) => events.push(e) })
    await expect.poll(() => events.length).toBe(1)
    expect(await client.call('app.update.check', {})).toMatchObject({ ok: true, value: { phase: 'available', version: '0.2.0' } })
    expect(await client.call('app.update.download', {})).toMatchObject({ ok: true, value: { phase: 'downloaded' } })
    await expect.poll(() => events.map((e) => e.percent ?? e.phase)).toEqual(['idle', 'available', 10, 60, 100, 100])
    expect(await client.call('app.update.restart', {})).toEqual({ ok: true, value: { restarting: true } })
    expect(calls).toEqual(['restart'])
    expect(await client.call('app.update.setMode', { mode: 'automatic' })).toMatchObject({ ok: true, value: { mode: 'automatic' } })
    expect(await client.call('app.update.setMode', { mode: 'sometimes' as 'off' })).toMatchObject({ ok: false, error: { errorType: 'ValidationError' } })
    expect(await client.call('app.commandLine.install', {})).toMatchObject({ ok: true, value: { installed: true } })
    handle.cancel()
    await expect.poll(() => listeners.size).toBe(0)
  })
})
