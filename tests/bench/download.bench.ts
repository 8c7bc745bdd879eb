import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { DownloadService } from '../../src/core/models-library/download-service'
import { fmt } from './util'

// A model download through the library's DownloadService (Range-capable fetch, writes in
// batches, sha256 while downloading, aggregated throttled progress) against baselines from
// the same run: a plain fetch piped to a file of the same bytes (throughput, goal ≥ 0.9×),
// and sha256 of the same bytes alone (CPU: ours minus the plain fetch's, goal ≤ 1.2× hashing
// alone). The subscriber of the download's progress must see ≤ 25 updates for 2 GB.
// BENCH_DOWNLOAD_BYTES overrides the size (2,000,000,000 by default).
const BYTES = Number(process.env['BENCH_DOWNLOAD_BYTES'] ?? 2_000_000_000)
const BLOCK = 1024 * 1024

const cpuMs = (start: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(start)
  return (d.user + d.system) / 1000
}

export default async function downloadBench(): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'download/byte-server.ts'), '--bytes', String(BYTES)], { stdio: ['ignore', 'pipe', 'inherit'] })
  const { url } = await new Promise<{ url: string }>((resolve, reject) => {
    child.once('error', reject)
    createInterface({ input: child.stdout! }).once('line', (line) => resolve(JSON.parse(line) as { url: string }))
  })
  const dir = mkdtempSync(join(tmpdir(), 'sb-download-bench-'))
  try {
    // Hashing alone: the same bytes (the server's repeated block), sha256 and nothing else.
    const reader = (await fetch(url)).body!.getReader()
    const head: Buffer[] = []
    for (let got = 0; got < BLOCK; ) {
      const { value } = await reader.read()
      if (!value) break
      head.push(Buffer.from(value))
      got += value.byteLength
    }
    await reader.cancel()
    const first = Buffer.concat(head).subarray(0, BLOCK)
    const h0 = process.cpuUsage()
    const hash = createHash('sha256')
    for (let pos = 0; pos < BYTES; pos += BLOCK) hash.update(first.subarray(0, Math.min(BLOCK, BYTES - pos)))
    const sha256 = hash.digest('hex')
    const hashCpu = cpuMs(h0)

    const plain = async () => {
      const path = join(dir, 'plain.bin')
      const c0 = process.cpuUsage()
      const t0 = performance.now()
      const response = await fetch(url)
      await pipeline(Readable.fromWeb(response.body as never), createWriteStream(path))
      const result = { wall: performance.now() - t0, cpu: cpuMs(c0) }
      rmSync(path, { force: true })
      return result
    }
    const ours = async () => {
      const modelsDir = join(dir, 'models')
      const service = new DownloadService({ modelsDir, diskSpace: async () => undefined })
      const c0 = process.cpuUsage()
      const t0 = performance.now()
      const start = await service.start({ ref: 'bench', source: { kind: 'hf', repo: 'bench/bench', file: 'bench.gguf' }, files: [{ url, dest: join(modelsDir, 'bench.gguf'), sizeBytes: BYTES, sha256 }], mainPath: join(modelsDir, 'bench.gguf') })
      let updates = 0
      let last
      for await (const snap of service.watch(start.id)) {
        updates++
        last = snap
      }
      const result = { wall: performance.now() - t0, cpu: cpuMs(c0), updates, phase: last?.phase, error: last?.error?.message }
      await service.close()
      rmSync(modelsDir, { recursive: true, force: true })
      return result
    }
    // Alternate, best of two each: the machine is shared and noisy.
    const p1 = await plain()
    const o1 = await ours()
    const p2 = await plain()
    const o2 = await ours()
    const p = p1.wall < p2.wall ? p1 : p2
    const o = o1.wall < o2.wall ? o1 : o2
    if (o.phase !== 'success') throw new Error(`the download did not succeed: ${o.error ?? o.phase}`)
    const throughput = p.wall / o.wall
    const hashingCpu = (o.cpu - p.cpu) / hashCpu
    const updates = Math.max(o1.updates, o2.updates)
    console.log(`${(BYTES / 1e9).toFixed(2)} GB from a local server (its own process)`)
    console.log(`plain fetch → file: ${fmt(p.wall)} wall, ${fmt(p.cpu)} CPU; library download (verified): ${fmt(o.wall)} wall, ${fmt(o.cpu)} CPU; sha256 alone: ${fmt(hashCpu)} CPU`)
    console.log(`throughput vs plain fetch: ${throughput.toFixed(2)}× (goal ≥ 0.9) ${throughput >= 0.9 ? 'OK' : 'FAIL'}`)
    console.log(`CPU beyond the plain fetch / sha256 alone: ${hashingCpu.toFixed(2)}× (goal ≤ 1.2) ${hashingCpu <= 1.2 ? 'OK' : 'FAIL'}`)
    console.log(`progress updates at the subscriber: ${updates} (goal ≤ 25 for 2 GB) ${updates <= 25 ? 'OK' : 'FAIL'}`)
  } finally {
    child.kill()
    rmSync(dir, { recursive: true, force: true })
  }
}
