import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { pathToFileURL } from 'node:url'
import OpenAI from 'openai'
import { main } from '../../src/cli/main'
import { createProviderRuntime } from '../../src/core/runtime/registry'
import { fmt, median, medianMs, report } from './util'

/**
 * 200 000 streamed chunks from the fake OpenAI server (run in its own process so it does not
 * share our event loop), consumed three ways in the same run: the bare `openai` SDK
 * (baseline), our runtime (transformer, watchdog, end-marker detection, speed), and the CLI's
 * `--json` output (runtime + one JSON line per event). Goal: runtime ≤ 1.3× the bare SDK.
 */
const CHUNKS = 200_000
const KEY = 'sk-bench-0000000000'

async function startServer(): Promise<{ url: string; child: ChildProcess }> {
  const dir = mkdtempSync(join(tmpdir(), 'sb-bench-'))
  const script = join(dir, 'serve.mts')
  const fixture = pathToFileURL(join(import.meta.dirname, '../fixtures/fake-openai/index.ts')).href
  writeFileSync(
    script,
    `import { startFakeOpenAI } from ${JSON.stringify(fixture)}\n` +
      `const fake = await startFakeOpenAI()\n` +
      `fake.setDefault('/chat/completions', { kind: 'bulk', count: ${CHUNKS}, text: 'x' })\n` +
      `console.log(fake.url)\n` +
      `process.stdin.on('end', () => process.exit(0)); process.stdin.resume()\n`
  )
  const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['pipe', 'pipe', 'inherit'] })
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.once('data', (d: Buffer) => resolve(d.toString().trim()))
    child.once('exit', (code) => reject(new Error(`fake server exited with ${code}`)))
  })
  return { url, child }
}

class Sink extends Writable {
  bytes = 0
  isTTY = false
  override _write(chunk: Buffer | string, _enc: BufferEncoding, done: () => void) {
    this.bytes += chunk.length
    done()
  }
}

export default async function runtimeBench(): Promise<void> {
  const { url, child } = await startServer()
  try {
    const sdk = new OpenAI({ apiKey: KEY, baseURL: url, maxRetries: 0 })
    let count = 0
    const bare = async () => {
      count = 0
      let text = ''
      const stream = await sdk.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'go' }], stream: true, stream_options: { include_usage: true } })
      for await (const chunk of stream) {
        const piece = chunk.choices[0]?.delta?.content
        if (piece) {
          text += piece
          count++
        }
      }
      if (text.length !== CHUNKS) throw new Error(`bare SDK got ${text.length} characters`)
    }
    const runtime = createProviderRuntime('openai', { apiKey: KEY, baseURL: url })
    let events = 0
    const ours = async () => {
      events = 0
      let text = ''
      let stop = ''
      for await (const event of runtime.chat!({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'go' }] })) {
        events++
        if (event.type === 'text') text += event.data
        else if (event.type === 'stop') stop = event.data
      }
      if (text.length !== CHUNKS || stop !== 'stop') throw new Error(`runtime got ${text.length} characters, stop ${stop}`)
    }
    const sink = new Sink()
    const cli = async () => {
      sink.bytes = 0
      const code = await main(['chat', 'openai/gpt-4o-mini', '--base-url', url, '--json', 'go'], {
        stdout: sink,
        stderr: new Sink(),
        stdin: process.stdin,
        env: { OPENAI_API_KEY: KEY }
      })
      if (code !== 0 || sink.bytes < CHUNKS * 20) throw new Error(`cli exited ${code} after ${sink.bytes} bytes`)
    }

    // Interleaved so drift on a shared machine hits all three alike.
    const runs = 5
    const times = { bare: [] as number[], ours: [] as number[], cli: [] as number[] }
    await bare()
    await ours()
    await cli()
    for (let i = 0; i < runs; i++) {
      times.bare.push(await medianMs(bare, 1, 0))
      times.ours.push(await medianMs(ours, 1, 0))
      times.cli.push(await medianMs(cli, 1, 0))
    }
    const tBare = median(times.bare)
    const tOurs = median(times.ours)
    const tCli = median(times.cli)
    console.log(`${CHUNKS.toLocaleString('en')} chunks per stream (${count.toLocaleString('en')} content chunks seen by the SDK, ${events.toLocaleString('en')} events from the runtime), ${runs} interleaved runs`)
    report('runtime chat stream (median)', tOurs, 'bare openai SDK', tBare, 'ms', '≤ 1.3×')
    report('CLI chat --json (median)', tCli, 'bare openai SDK', tBare, 'ms', '≤ 1.3×')
    // Other processes only ever add time, so the fastest run of each is the least disturbed estimate.
    report('runtime chat stream (best run)', Math.min(...times.ours), 'bare openai SDK', Math.min(...times.bare), 'ms', '≤ 1.3×')
    report('CLI chat --json (best run)', Math.min(...times.cli), 'bare openai SDK', Math.min(...times.bare), 'ms', '≤ 1.3×')
    console.log(`per-event overhead: runtime ${fmt((tOurs - tBare) / CHUNKS)}, CLI --json ${fmt((tCli - tBare) / CHUNKS)} (over the bare SDK's ${fmt(tBare / CHUNKS)} per chunk)`)
    console.log(`CLI wrote ${(sink.bytes / 1e6).toFixed(1)} MB of JSON lines per run`)
  } finally {
    child.stdin?.end()
    child.kill()
  }
}
