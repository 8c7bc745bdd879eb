import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import type { PullSnapshot } from '../../src/shared/local/pull-progress'
import type { Result } from '../../src/shared/errors/app-error'
import { Ollama } from 'ollama'
import { fmt, report } from './util'
import { startTestCore } from '../integration/test-core'

// A fake Ollama (its own process, so its CPU is not counted) streams 50,000 progress lines
// in 2 s. Through the pull service and the bridge, the subscriber must see at most 25
// updates and the exact final byte count. The core's CPU time for the pull is printed next
// to baselines taken in the same run: split + JSON.parse of the same NDJSON, nothing else, and
// the ollama SDK alone iterating a pull of the same shape (its fetch and parsing are the floor).
const LINES_PER_LAYER = 12_500 // × 4 layers = 50,000 progress lines
const TOTAL_MS = 2_000
const WEIGHTS = 637_700_000

export default async function pullBench(): Promise<void> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, '../fixtures/fake-ollama/main.ts'), '--lines-per-layer', String(LINES_PER_LAYER), '--total-ms', String(TOTAL_MS), '--weights-bytes', String(WEIGHTS)],
    { stdio: ['ignore', 'pipe', 'inherit'] }
  )
  const { url } = await new Promise<{ url: string }>((resolve, reject) => {
    child.once('error', reject)
    createInterface({ input: child.stdout! }).once('line', (line) => resolve(JSON.parse(line) as { url: string }))
  })
  const dataDir = mkdtempSync(join(tmpdir(), 'sb-pull-bench-'))
  // Start-up (database, catalogue…) finishes first so its work is not counted.
  const { core, client } = await startTestCore('sb-pull-bench-', { dataDir })
  try {
    // Reference: the SDK alone iterating the same kind of pull (fetch + NDJSON parsing), nothing else.
    const sdk0 = process.cpuUsage()
    let sdkLines = 0
    for await (const _line of await new Ollama({ host: url }).pull({ model: 'smollm2:135m', stream: true })) sdkLines++
    const sdk = process.cpuUsage(sdk0)
    const sdkCpuMs = (sdk.user + sdk.system) / 1000

    // The pull through the core, watched over the bridge.
    const cpu0 = process.cpuUsage()
    const t0 = performance.now()
    const started = await client.call('local.pull.start', { model: 'bench', baseUrl: url })
    if (!started.ok) throw new Error(started.error.message)
    let updates = 0
    let last: PullSnapshot | undefined
    const end = await new Promise<Result<PullSnapshot | null>>((resolve) =>
      client.stream('local.pull.watch', { id: started.value.id }, {
        onEvent: (snap) => {
          updates++
          last = snap
        },
        onEnd: resolve
      })
    )
    const wall = performance.now() - t0
    const cpu = process.cpuUsage(cpu0)
    const coreCpuMs = (cpu.user + cpu.system) / 1000
    if (!end.ok) throw new Error(end.error.message)

    // Baseline: the same NDJSON (another model with the same layer layout), parsed and nothing else.
    const response = await fetch(`${url}/api/pull`, { method: 'POST', body: JSON.stringify({ model: 'tinyllama', stream: true }) })
    const text = await response.text()
    const lineCount = text.split('\n').filter(Boolean).length
    const base0 = process.cpuUsage()
    let parsed = 0
    for (const line of text.split('\n')) if (line) parsed += (JSON.parse(line) as { completed?: number }).completed ? 1 : 0
    const base = process.cpuUsage(base0)
    const baselineCpuMs = (base.user + base.system) / 1000

    const expectedBytes = WEIGHTS + 1_429 + 7_711 + 96
    const okUpdates = updates <= 25
    const okBytes = last?.phase === 'success' && last.completedBytes === expectedBytes && last.totalBytes === expectedBytes
    console.log(`fake pull: ${lineCount.toLocaleString('en')} NDJSON lines (${parsed.toLocaleString('en')} with progress) in ${fmt(wall)} wall`)
    console.log(`updates at the bridge subscriber: ${updates} (goal ≤ 25) ${okUpdates ? 'OK' : 'FAIL'}`)
    console.log(`final bytes: ${last?.completedBytes.toLocaleString('en')} of ${expectedBytes.toLocaleString('en')} expected, phase ${last?.phase} ${okBytes ? 'OK' : 'FAIL'}`)
    report('core CPU for the whole pull (parse+aggregate+bridge)', coreCpuMs, 'baseline split+JSON.parse', baselineCpuMs, 'ms')
    report('core CPU for the whole pull (parse+aggregate+bridge)', coreCpuMs, `SDK alone iterating ${sdkLines.toLocaleString('en')} lines`, sdkCpuMs, 'ms', 'close to the SDK alone')
    if (!okUpdates || !okBytes) process.exitCode = 1
  } finally {
    await core.close()
    child.kill('SIGTERM')
    rmSync(dataDir, { recursive: true, force: true })
  }
}
