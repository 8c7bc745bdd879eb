import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { Core } from '../../src/core'
import { MemoryBackend } from '../../src/core/secrets'
import type { Result } from '../../src/shared/errors/app-error'
import type { DownloadSnapshot } from '../../src/shared/models-library/types'
import { startFakeHfHub, sha256, type FakeHub } from '../fixtures/fake-hf-hub/server'
import { paddedModel } from '../fixtures/gguf-headers/write-gguf'
import { startTestCore } from './test-core'

// The page follows downloads as tasks (kind `download`): after a restart, a download the
// previous run left unfinished resumes in the background, and a page that opens then must find
// it among the running tasks and see its progress move to the end, as the renderer's library
// store does (models.download.list, then tasks.active, then attach).

const MB = 1024 * 1024
const model = paddedModel(4 * MB, 77)
let hub: FakeHub | undefined
const cores: Core[] = []
afterEach(async () => {
  for (const c of cores.splice(0)) await c.close()
  await hub?.close()
  hub = undefined
})

async function start(dataDir: string) {
  const app = await startTestCore('sb-lib-restart-', { dataDir, secrets: { backend: new MemoryBackend() } })
  cores.push(app.core)
  return app
}

describe('a download resumed after a restart shows its live progress', () => {
  it('the restored download is a running task a new page follows to the verified end', async () => {
    hub = await startFakeHfHub([{ id: 'acme/Slow-GGUF', files: [{ path: 'slow-Q4_K_M.gguf', content: model }] }], { faults: { bytesPerSecond: 2 * MB } })
    const dataDir = mkdtempSync(join(tmpdir(), 'sb-lib-restart-'))
    const first = await start(dataDir)
    await first.client.call('models.settings.set', { hubEndpoint: hub.url })
    const started = await first.client.call('models.download.start', { ref: 'hf:acme/Slow-GGUF' })
    if (!started.ok) throw new Error(started.error.message)
    const lib = first.core.services().modelsLibrary.library
    while ((lib.downloads.get(started.value.id)?.completedBytes ?? 0) < MB) await new Promise((r) => setTimeout(r, 50))
    // The app quits mid-download.
    await first.core.close()
    cores.splice(cores.indexOf(first.core), 1)
    hub.faults.bytesPerSecond = 8 * MB

    const second = await start(dataDir)
    // A window opens once start-up is over: by then the resumed download is a running task.
    const active = await second.client.call('tasks.active', { kind: 'download' })
    const task = active.ok ? active.value.find((t) => (t.meta as { downloadId?: string }).downloadId === started.value.id) : undefined
    expect(task, 'the resumed download is not among the running tasks: the page cannot follow it').toBeDefined()
    const events: DownloadSnapshot[] = []
    const end = await new Promise<Result<unknown>>((resolve) => second.client.attach('models.download.watch', task!.id, { onEvent: (s) => events.push(s as DownloadSnapshot), onEnd: resolve }, 0))
    expect(end.ok).toBe(true)
    expect(events.length).toBeGreaterThan(1)
    expect(events[0]!.resumed).toBe(true)
    const last = events.at(-1)!
    expect(last.phase).toBe('success')
    expect(createHash('sha256').update(readFileSync(last.path!)).digest('hex')).toBe(sha256(model))
  }, 60_000)
})
