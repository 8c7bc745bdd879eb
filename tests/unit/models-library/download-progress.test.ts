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
