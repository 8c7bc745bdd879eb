import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { createCore } from '../../src/core'
import { MemoryBackend } from '../../src/core/secrets'
import { ToolService } from '../../src/core/tools/tool-service'
import { runToolStep } from '../../src/core/tools/tool-loop'
import type { JsonValue } from '../../src/shared/data/json'
import { fmt, median, medianMs, report } from './util'
import { startTestCore } from '../integration/test-core'

// Issue 21. (1) The tool loop's own overhead per call: one step of the loop (approval check,
// argument parsing, the call through our connection, result conversion, events) against the
// official SDK client calling the same tool of the same reference server directly. Both talk
// to their own server-everything process over stdio. Goal ≤ 1.2×.
// (2) Start-up with 10 configured tool servers against none: servers connect lazily, so there
// should be no difference beyond noise.
const EVERYTHING = resolve('node_modules/@modelcontextprotocol/server-everything/dist/index.js')
const CALLS = 300

/**
 * Per-call times of two functions measured interleaved (a, b, a, b, …) after a warm-up, each
 * the median of its calls: drift on a shared machine and JIT warm-up hit both alike.
 */
async function interleaved(a: () => Promise<unknown>, b: () => Promise<unknown>): Promise<[number, number]> {
  for (let i = 0; i < 200; i++) {
    await a()
    await b()
  }
  const ta: number[] = []
  const tb: number[] = []
  for (let i = 0; i < CALLS; i++) {
    let start = performance.now()
    await a()
    ta.push(performance.now() - start)
    start = performance.now()
    await b()
    tb.push(performance.now() - start)
  }
  return [median(ta), median(tb)]
}

async function loopOverhead(): Promise<void> {
  const sdk = new Client({ name: 'bench', version: '1' })
  await sdk.connect(new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' }))
  const settings: Record<string, JsonValue | undefined> = {}
  const service = new ToolService({ get: () => settings, set: (p) => Object.assign(settings, p) }, { set: async () => undefined, delete: async () => undefined, readForRuntime: async () => undefined })
  const { id } = await service.addServer({ name: 'everything', transport: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] })
  service.setApproval(id, 'echo', 'allow')
  const offered = await service.toolsFor({ servers: [id], builtins: [] })
  const signal = new AbortController().signal
  let n = 0
  const viaLoop = async () => {
    const step = runToolStep(service, offered, [{ id: `c${n++}`, type: 'function', function: { name: 'everything__echo', arguments: '{"message":"ping"}' } }], { messageId: 'bench', signal })
    let r = await step.next()
    while (!r.done) r = await step.next()
    if (r.value.results[0]?.outcome !== 'ok') throw new Error(r.value.results[0]?.content)
  }
  const direct = () => sdk.callTool({ name: 'echo', arguments: { message: 'ping' } })
  const [sdkMs, loopMs] = await interleaved(direct, viaLoop)
  report('tool loop step per call (echo over stdio)', loopMs, 'SDK client direct', sdkMs, 'ms', '≤ 1.2×')
  // The same SDK call with the options every loop call needs (progress token and handler, a
  // per-call signal, the per-server timeout): what is left is the loop's own work.
  const withOptions = () => {
    const own = new AbortController()
    return sdk.callTool({ name: 'echo', arguments: { message: 'ping' } }, undefined, { signal: own.signal, timeout: 60_000, resetTimeoutOnProgress: true, onprogress: () => undefined })
  }
  const [optMs, loopMs2] = await interleaved(withOptions, viaLoop)
  report('tool loop step per call (echo over stdio)', loopMs2, 'SDK client, same call options', optMs, 'ms')
  await sdk.close()
  await service.close()
}

async function startUp(): Promise<void> {
  const empty = mkdtempSync(join(tmpdir(), 'sb-bench-tools-0-'))
  const ten = mkdtempSync(join(tmpdir(), 'sb-bench-tools-10-'))
  // Both folders are made the same way (a started core, the default agent given its tools), so
  // the only difference is the ten servers. The baseline used to be a folder only the warm-up
  // runs had opened, with no data at all: that measured data against none, not the servers.
  for (const [dataDir, servers] of [
    [empty, 0],
    [ten, 10]
  ] as const) {
    const { core, client } = await startTestCore('sb-bench-tools-', { dataDir, secrets: { backend: new MemoryBackend() } })
    for (let i = 0; i < servers; i++) await client.call('tools.addServer', { name: `server-${i}`, transport: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] })
    // The default agent uses all ten: still nothing may connect before a reply needs them.
    const agent = await client.call('chat.sidebar', {})
    const list = await client.call('tools.servers', {})
    if (agent.ok && list.ok) await client.call('tools.setAgentTools', { agentId: agent.value.defaultAgentId, servers: list.value.map((s) => s.id), builtins: [] })
    await core.close()
  }
  const boot = (dataDir: string) => async () => {
    // Built by hand, not through tests/integration/test-core.ts: this is the start-up being timed (no client, nothing else).
    const core = createCore({ dataDir, mode: 'test', secrets: { backend: new MemoryBackend() } })
    const state = await core.context.init.start()
    if (state.phase !== 'ready') throw new Error(String(state.detail))
    await core.close()
  }
  const none = await medianMs(boot(empty), 21, 3)
  const withTen = await medianMs(boot(ten), 21, 3)
  const none2 = await medianMs(boot(empty), 21, 3)
  report('start-up with 10 tool servers configured', withTen, 'none configured', Math.min(none, none2), 'ms', 'no difference beyond noise')
  console.log(`  (start-up without servers, two runs: ${fmt(none)} / ${fmt(none2)})`)
}

export default async function bench(): Promise<void> {
  await loopOverhead()
  await startUp()
}
