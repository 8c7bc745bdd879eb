import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import OpenAI from 'openai'
import { alternatingMedianMs, fmt, median, report } from './util'

/**
 * The local API's cost: a 200,000-chunk stream read by the `openai` SDK through the gateway
 * (its own process: the app's runtime, the Chat Completions encoder, the SSE writer) against the
 * same SDK reading the upstream fake directly (the fake in a third process). Goals: ≤ 1.15×
 * wall time, and ≤ 5 ms added time to the first token. The fake writes its chunks as
 * api.openai.com does (`shape: 'openai'`), so the client reads chunks of the size it would read
 * from OpenAI on both sides: with smaller ones the direct run measured a lighter stream than any
 * real upstream sends, and the gateway's chunks, which follow the wire format, paid for it.
 */
const CHUNKS = 200_000
const KEY = 'sk-bench-0000000000'

function child(source: string): Promise<{ line: string; proc: ChildProcess }> {
  const dir = mkdtempSync(join(tmpdir(), 'sb-gw-bench-'))
  const script = join(dir, 'run.mts')
  writeFileSync(script, source)
  const proc = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['pipe', 'pipe', 'inherit'] })
  return new Promise((resolve, reject) => {
    proc.stdout!.once('data', (d: Buffer) => resolve({ line: d.toString().trim(), proc }))
    proc.once('exit', (code) => reject(new Error(`bench child exited with ${code}`)))
  })
}

/** CPU time (user + system, ms) a process has used so far, from /proc; undefined where there is none. */
function cpuMs(pid: number | undefined): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100 // clock ticks, 100 per second on Linux
  } catch {
    return undefined
  }
}


const src = (path: string) => JSON.stringify(pathToFileURL(join(import.meta.dirname, path)).href)

export default async function gatewayBench(): Promise<void> {
  const upstream = await child(
    `import { startFakeOpenAI, chatChunks } from ${src('../fixtures/fake-openai/index.ts')}\n` +
      `const fake = await startFakeOpenAI()\n` +
      `fake.setDefault('/chat/completions', (req) => req.body.messages[0].content === 'short' ? { kind: 'sse', chunks: chatChunks(['hi']) } : { kind: 'bulk', count: ${CHUNKS}, text: 'x', shape: 'openai', usage: req.body.stream_options?.include_usage === true })\n` +
      `console.log(fake.url)\n` +
      `process.stdin.on('end', () => process.exit(0)); process.stdin.resume()\n`
  )
  const gateway = await child(
    `import { startGatewayServer } from ${src('../../src/core/gateway/gateway-server.ts')}\n` +
      `import { createAppGatewayBackend } from ${src('../../src/core/gateway/app-backend.ts')}\n` +
      `import { newApiKey } from ${src('../../src/core/gateway/access.ts')}\n` +
      `import { createProviderRuntime } from ${src('../../src/core/runtime/registry.ts')}\n` +
      `import { ModelCaller } from ${src('../../src/core/caller/model-caller.ts')}\n` +
      `const key = newApiKey()\n` +
      `const runtime = createProviderRuntime('openai', { apiKey: ${JSON.stringify(KEY)}, baseURL: ${JSON.stringify(upstream.line)} })\n` +
      `const caller = new ModelCaller({ runtimeFor: async () => runtime, price: async () => undefined })\n` +
      `const backend = createAppGatewayBackend({ caller, providers: { list: async () => ({ providers: [], picker: [] }), models: async () => [], runtime: async () => runtime, price: async () => undefined }, usage: { add() {}, spentByKey: () => ({ usd: 0, calls: 0 }) }, builtin: { listed: async () => undefined } })\n` +
      `const server = await startGatewayServer({ host: '127.0.0.1', port: 0, backend, config: () => ({ keys: [{ id: 'b', name: 'bench', prefix: key.prefix, hash: key.hash, createdAt: 0 }], aliases: {}, allowedOrigins: [], allowedHosts: [] }) })\n` +
      `console.log(JSON.stringify({ url: server.url, secret: key.secret }))\n` +
      `process.stdin.on('end', () => process.exit(0)); process.stdin.resume()\n`
  )
  const { url, secret } = JSON.parse(gateway.line) as { url: string; secret: string }
  try {
    const direct = new OpenAI({ apiKey: KEY, baseURL: upstream.line, maxRetries: 0 })
    const through = new OpenAI({ apiKey: secret, baseURL: `${url}/v1`, maxRetries: 0 })
    // CPU per stream, besides the wall time: the wall time moves with the machine's load (the
    // gateway's three processes share two cores with other work), CPU time much less.
    const cpu = { client: [[], []] as [number[], number[]], gateway: [] as number[] }
    const read = (client: OpenAI, model: string) => async () => {
      const gateway0 = cpuMs(gateway.proc.pid)
      const client0 = process.cpuUsage()
      await readAll(client, model)
      const used = process.cpuUsage(client0)
      cpu.client[client === direct ? 0 : 1].push((used.user + used.system) / 1000)
      const gateway1 = cpuMs(gateway.proc.pid)
      if (client !== direct && gateway0 !== undefined && gateway1 !== undefined) cpu.gateway.push(gateway1 - gateway0)
    }
    const readAll = async (client: OpenAI, model: string) => {
      let text = ''
      const stream = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'go' }], stream: true, stream_options: { include_usage: true } })
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? ''
      if (text.length !== CHUNKS) throw new Error(`read ${text.length} characters`)
    }
    const first = (client: OpenAI, model: string) => async () => {
      const stream = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'short' }], stream: true })
      for await (const chunk of stream) if (chunk.choices[0]?.delta?.content) break
    }
    // In alternation: the machine is shared, and its load drifts between the first runs and the last.
    const [bare, ours] = await alternatingMedianMs(read(direct, 'gpt-4o-mini'), read(through, 'openai/gpt-4o-mini'), 7, 1)
    report(`${CHUNKS.toLocaleString('en')} chunks through the gateway`, ours, 'SDK direct', bare, 'ms', '≤ 1.15×')
    const gatewayCpu = median(cpu.gateway)
    console.log(
      `CPU per stream: client ${fmt(median(cpu.client[1])!)} through the gateway vs ${fmt(median(cpu.client[0])!)} direct` +
        (gatewayCpu === undefined ? '' : `; the gateway's process ${fmt(gatewayCpu)}`)
    )
    const [ttftBare, ttftOurs] = await alternatingMedianMs(first(direct, 'gpt-4o-mini'), first(through, 'openai/gpt-4o-mini'), 30, 5)
    console.log(`time to first token: gateway ${fmt(ttftOurs)} vs direct ${fmt(ttftBare)}: added ${fmt(ttftOurs - ttftBare)}   goal: ≤ 5 ms`)

    // Eight clients at once (an editor and a few agents): each short call's whole time, through
    // the gateway and direct, in alternating rounds; the added latency is the difference of the
    // two distributions' percentiles.
    const CONCURRENT = 8
    const ROUNDS = 25
    const timed = async (client: OpenAI, model: string): Promise<number> => {
      const started = performance.now()
      let text = ''
      const stream = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'short' }], stream: true })
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? ''
      if (!text) throw new Error('no answer')
      return performance.now() - started
    }
    const round = (client: OpenAI, model: string) => Promise.all(Array.from({ length: CONCURRENT }, () => timed(client, model)))
    const times: [number[], number[]] = [[], []]
    for (let i = 0; i < ROUNDS + 2; i++) {
      const order = i % 2 === 0 ? ([0, 1] as const) : ([1, 0] as const)
      for (const side of order) {
        const results = await round(side === 0 ? direct : through, side === 0 ? 'gpt-4o-mini' : 'openai/gpt-4o-mini')
        if (i >= 2) times[side].push(...results) // the first two rounds warm both sides up
      }
    }
    const pct = (xs: number[], p: number) => [...xs].sort((x, y) => x - y)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]!
    const added = (p: number) => pct(times[1], p) - pct(times[0], p)
    console.log(
      `${CONCURRENT} concurrent requests (${times[0].length} each side): added latency p50 ${fmt(added(50))}, p95 ${fmt(added(95))}, p99 ${fmt(added(99))} ` +
        `(gateway p50 ${fmt(pct(times[1], 50))} / p95 ${fmt(pct(times[1], 95))}; direct ${fmt(pct(times[0], 50))} / ${fmt(pct(times[0], 95))})   goal: p95 ≤ 10 ms`
    )
  } finally {
    gateway.proc.stdin!.end()
    upstream.proc.stdin!.end()
  }
}
