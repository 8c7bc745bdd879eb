import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { DownloadService } from '../../../src/core/models-library/download-service'
import type { DownloadSnapshot } from '../../../src/shared/models-library/types'

const MB = 1024 * 1024

/** A body of `chunks` pieces of `chunkBytes`, one every `gapMs` (a download whose speed we choose). */
function pacedFetch(chunks: number, chunkBytes: number, gapMs: number): typeof fetch {
  return (async () => {
    let sent = 0
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (sent === chunks) return controller.close()
        await new Promise((r) => setTimeout(r, gapMs))
        sent++
        controller.enqueue(new Uint8Array(chunkBytes).fill(sent))
      }
    })
    return new Response(body, { status: 200, headers: { 'content-length': String(chunks * chunkBytes) } })
  }) as typeof fetch
}

async function run(service: DownloadService, dir: string, size: number): Promise<DownloadSnapshot[]> {
  const dest = join(dir, 'm.gguf')
  const start = await service.start({ ref: 'm', source: { kind: 'hf', repo: 'a/b', file: 'm.gguf' }, files: [{ url: 'http://127.0.0.1:9/m.gguf', dest, sizeBytes: size }], mainPath: dest })
  const seen: DownloadSnapshot[] = []
  for await (const s of service.watch(start.id)) seen.push(s)
  await service.close()
  return seen
}

describe('download progress updates', () => {
  it('publish each 5 % step as it is reached, even while a heartbeat is pending (a slow step must not hold back the next ones)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-dl-progress-'))
    // 40 × 1 MB, one every 30 ms: each batch written moves the bar 2.5 %; the heartbeat is far away.
    const service = new DownloadService({ modelsDir: dir, fetch: pacedFetch(40, MB, 30), diskSpace: async () => undefined, throttleMs: 0, heartbeatMs: 60_000 })
    const seen = await run(service, dir, 40 * MB)
    expect(seen.at(-1)!.phase).toBe('success')
    const moving = seen.filter((s) => s.phase === 'downloading' && s.fraction > 0 && s.fraction < 1)
    // About one update per 5 % (19 steps between 0 and 1); before, a pending heartbeat swallowed them all.
    expect(moving.length).toBeGreaterThanOrEqual(12)
    for (let i = 1; i < moving.length; i++) expect(moving[i]!.fraction - moving[i - 1]!.fraction).toBeGreaterThanOrEqual(0.049)
  })

  it('a download of 2 GB-like proportions sends at most 25 updates however long its steps take', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-dl-progress-'))
    // 100 steps of 1 %, each slower than the default throttle: the count is bound by steps, not by time.
    const service = new DownloadService({ modelsDir: dir, fetch: pacedFetch(100, MB, 15), diskSpace: async () => undefined })
    const seen = await run(service, dir, 100 * MB)
    expect(seen.at(-1)!.phase).toBe('success')
    expect(seen.length).toBeLessThanOrEqual(25)
  })
})

describe('unfinished downloads across processes', () => {
  const plan = (dir: string, name: string) => ({ ref: `hf:a/b:${name}`, source: { kind: 'hf' as const, repo: 'a/b', file: name }, files: [{ url: `http://127.0.0.1:9/${name}`, dest: join(dir, name), sizeBytes: 8 * MB }], mainPath: join(dir, name) })

  it('two services on one models folder (the app and the CLI) both keep their unfinished downloads: neither overwrites the other', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-dl-two-'))
    const app = new DownloadService({ modelsDir: dir, fetch: pacedFetch(8, MB, 200), diskSpace: async () => undefined })
    const cli = new DownloadService({ modelsDir: dir, fetch: pacedFetch(8, MB, 200), diskSpace: async () => undefined })
    const a = await app.start(plan(dir, 'a.gguf'))
    const b = await cli.start(plan(dir, 'b.gguf'))
    app.pause(a.id)
    cli.pause(b.id)
    await app.wait(a.id)
    await cli.wait(b.id)
    await app.close()
    await cli.close()
    const next = new DownloadService({ modelsDir: dir, fetch: pacedFetch(8, MB, 200), diskSpace: async () => undefined })
    const restored = await next.restore()
    expect(restored.map((s) => s.ref).sort()).toEqual(['hf:a/b:a.gguf', 'hf:a/b:b.gguf'])
    expect(restored.every((s) => s.phase === 'paused')).toBe(true)
    await next.close()
  })

  it('a start-up does not resume a download another live process is running (two transfers would write one partial)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-dl-two-'))
    const other = new DownloadService({ modelsDir: dir, fetch: pacedFetch(40, MB, 100), diskSpace: async () => undefined })
    const running = await other.start(plan(dir, 'c.gguf'))
    await new Promise((r) => setTimeout(r, 300))
    // Pretend the running download belongs to another live process: the saved entry names its owner.
    const { spawn } = await import('node:child_process')
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 20000)'])
    try {
      const { readdirSync, readFileSync, writeFileSync } = await import('node:fs')
      const files = readdirSync(join(dir, 'downloads'))
      expect(files).toEqual([`${running.id}.json`])
      const path = join(dir, 'downloads', files[0]!)
      const saved = JSON.parse(readFileSync(path, 'utf8')) as { pid?: number }
      expect(saved.pid).toBe(process.pid)
      writeFileSync(path, JSON.stringify({ ...saved, pid: child.pid }))
      const second = new DownloadService({ modelsDir: dir, fetch: pacedFetch(40, MB, 100), diskSpace: async () => undefined })
      expect(await second.restore()).toEqual([])
      await second.close()
    } finally {
      child.kill()
      await other.cancel(running.id)
      await other.close()
    }
  })
})
