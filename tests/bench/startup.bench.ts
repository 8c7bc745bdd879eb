import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import WebSocket from 'ws'
import { appPathFor } from '../../src/server/server'
import { fmt, median, report } from './util'

/**
 * Start-up and packaging figures, each next to a baseline measured in the same run:
 *  - `switchboard --help`, `providers` and `models openai`, whole process, against `node -e 0`
 *    (goal ≤ 4×; these load no SDK and open no store, tests/unit/cli/cli-startup-graph.test.ts);
 *  - `switchboard chat --json` over a 200,000-chunk stream, whole process, against a bare-SDK
 *    script doing the same in its own process (goal ≤ 1.15×), in wall time and in the processes'
 *    own CPU time (steadier on a shared machine);
 *  - from starting the browser-mode server process (the core, as main runs it) to its first
 *    bridge call answered over the socket, against a bare `ws` server process answering one message;
 *  - the renderer's initial JavaScript (entry chunk + what it imports statically), minified,
 *    against all of the renderer's JavaScript (goal ≤ 1 MB).
 * It builds first (`electron-vite build`) so the figures are of the code in the tree.
 */
const root = resolve(import.meta.dirname, '../..')
const bin = join(root, 'bin/switchboard.mjs')
const CHUNKS = 200_000
const KEY = 'sk-bench-0000000000'
const TOKEN = 'bench-token-0123456789abcdef'


function wall(args: string[], env: NodeJS.ProcessEnv = process.env): number {
  const started = performance.now()
  const r = spawnSync(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 1 << 30 })
  const ms = performance.now() - started
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr.toString()}`)
  return ms
}

/**
 * A preload that writes the process's own CPU time (user + system, ms) to CPU_TIME_OUT when it
 * exits. The machines here are shared, so wall time swings with other work; CPU time much less.
 * Both sides of a comparison run under it.
 */
function cpuTimePreload(): { args: string[]; read(): number } {
  const dir = mkdtempSync(join(tmpdir(), 'sb-startup-cpu-'))
  const script = join(dir, 'cpu-time.mjs')
  const out = join(dir, 'cpu-ms')
  writeFileSync(
    script,
    `import { writeFileSync } from 'node:fs'\n` +
      `process.on('exit', () => { const u = process.cpuUsage(); writeFileSync(${JSON.stringify(out)}, String((u.user + u.system) / 1000)) })\n`
  )
  return { args: ['--import', pathToFileURL(script).href], read: () => Number(readFileSync(out, 'utf8')) }
}

/** Runs each command `runs` times, interleaved so drift on a shared machine hits all alike. */
function interleaved(commands: Record<string, () => number>, runs: number): Record<string, number[]> {
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(commands).map((k) => [k, []]))
  for (const run of Object.values(commands)) run() // warm the file cache
  for (let i = 0; i < runs; i++) for (const [name, run] of Object.entries(commands)) times[name]!.push(run())
  return times
}

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address() as { port: number }
  await new Promise<void>((r) => server.close(() => r()))
  return port
}

/** The fake OpenAI server in its own process, serving one bulk stream of CHUNKS chunks. */
async function startFakeOpenAI(): Promise<{ url: string; child: ChildProcess }> {
  const dir = mkdtempSync(join(tmpdir(), 'sb-startup-bench-'))
  const script = join(dir, 'serve.mts')
  const fixture = pathToFileURL(join(root, 'tests/fixtures/fake-openai/index.ts')).href
  writeFileSync(
    script,
    `import { startFakeOpenAI } from ${JSON.stringify(fixture)}\n` +
      `const fake = await startFakeOpenAI()\n` +
      `fake.setDefault('/chat/completions', { kind: 'bulk', count: ${CHUNKS}, text: 'x' })\n` +
      `console.log(fake.url)\n` +
      `process.stdin.on('end', () => process.exit(0)); process.stdin.resume()\n`
  )
  const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['pipe', 'pipe', 'inherit'], cwd: root })
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.once('data', (d: Buffer) => resolve(d.toString().trim()))
    child.once('exit', (code) => reject(new Error(`fake server exited with ${code}`)))
  })
  return { url, child }
}

/** Starts `node <args>` and times until a WebSocket call to it is answered; then stops it. */
async function firstAnswer(args: string[], port: number, path: string, message: object, env: NodeJS.ProcessEnv): Promise<number> {
  const started = performance.now()
  const child = spawn(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'ignore', 'inherit'] })
  try {
    for (;;) {
      const answered = await new Promise<boolean>((resolve) => {
        const socket = new WebSocket(`ws://127.0.0.1:${port}${path}`, { origin: `http://127.0.0.1:${port}` })
        socket.once('open', () => socket.send(JSON.stringify(message)))
        socket.once('message', () => {
          socket.close()
          resolve(true)
        })
        socket.once('error', () => resolve(false))
      })
      if (answered) return performance.now() - started
      if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited ${child.exitCode}`)
      // A server that refuses the socket (a wrong path or token) would otherwise be asked forever.
      if (performance.now() - started > 60_000) throw new Error(`${args.join(' ')}: no answer on ${path} within 60 s`)
      await new Promise((r) => setTimeout(r, 2))
    }
  } finally {
    child.kill()
    await new Promise((r) => (child.exitCode !== null ? r(undefined) : child.once('exit', r)))
  }
}

/** The renderer's initial JavaScript: the entry script and every chunk it imports statically. */
function rendererJs(): { initial: number; total: number; files: string[] } {
  const dir = join(root, 'out/renderer')
  const html = readFileSync(join(dir, 'index.html'), 'utf8')
  const seen = new Set<string>()
  const visit = (file: string) => {
    if (seen.has(file) || !existsSync(file)) return
    seen.add(file)
    const code = readFileSync(file, 'utf8')
    for (const m of code.matchAll(/(?:\bfrom|\bimport)\s*["'](\.\/[^"']+\.js)["']/g)) visit(resolve(dirname(file), m[1]!))
  }
  for (const m of html.matchAll(/<(?:script[^>]*\ssrc|link[^>]*rel="modulepreload"[^>]*\shref)="([^"]+\.js)"/g)) visit(resolve(dir, m[1]!))
  const all = spawnSync('sh', ['-c', `ls ${join(dir, 'assets')}/*.js`], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean)
  const size = (files: Iterable<string>) => [...files].reduce((n, f) => n + statSync(f).size, 0)
  return { initial: size(seen), total: size(all), files: [...seen].map((f) => f.replace(`${dir}/`, '')) }
}

export default async function startupBench(): Promise<void> {
  if (process.env['STARTUP_BENCH_NO_BUILD'] !== '1') {
    const built = spawnSync(join(root, 'node_modules/.bin/electron-vite'), ['build'], { cwd: root, stdio: 'ignore' })
    if (built.status !== 0) throw new Error('electron-vite build failed')
  }

  // 1. Start-up of the CLI, whole process.
  const runs = 15
  const cli = interleaved(
    {
      node: () => wall(['-e', '0']),
      help: () => wall([bin, '--help']),
      providers: () => wall([bin, 'providers']),
      models: () => wall([bin, 'models', 'openai'])
    },
    runs
  )
  console.log(`whole-process wall time, ${runs} interleaved runs (median)`)
  report('switchboard --help', median(cli['help']!), 'node -e 0', median(cli['node']!), 'ms', '≤ 4×')
  report('switchboard providers', median(cli['providers']!), 'node -e 0', median(cli['node']!), 'ms', '≤ 4×')
  report('switchboard models openai', median(cli['models']!), 'node -e 0', median(cli['node']!), 'ms', '≤ 4×')

  // 2. A long reply through the CLI, whole process, against the bare SDK in its own process.
  const { url, child } = await startFakeOpenAI()
  try {
    const env = { ...process.env, OPENAI_API_KEY: KEY }
    const cpuTime = cpuTimePreload()
    const cpu: { bare: number[]; cli: number[] } = { bare: [], cli: [] }
    const run = (side: 'bare' | 'cli', args: string[]) => {
      const ms = wall([...cpuTime.args, ...args], env)
      cpu[side].push(cpuTime.read())
      return ms
    }
    const chat = interleaved(
      {
        bare: () => run('bare', [join(import.meta.dirname, 'startup/bare-sdk-chat.mjs'), url]),
        cli: () => run('cli', [bin, 'chat', 'openai/gpt-4o-mini', '--base-url', url, '--json', 'go'])
      },
      5
    )
    console.log(`\n${CHUNKS.toLocaleString('en')}-chunk stream, whole process, 5 interleaved runs`)
    report('switchboard chat --json (median)', median(chat['cli']!), 'bare-SDK script', median(chat['bare']!), 'ms', '≤ 1.15×')
    report('switchboard chat --json (best run)', Math.min(...chat['cli']!), 'bare-SDK script', Math.min(...chat['bare']!), 'ms', '≤ 1.15×')
    // The warm-up run is left out of the CPU figures as of the wall ones.
    report('switchboard chat --json CPU time (median)', median(cpu.cli.slice(1)), 'bare-SDK script', median(cpu.bare.slice(1)), 'ms', '≤ 1.15×')
  } finally {
    child.stdin?.end()
    child.kill()
  }

  // 3. Process start to the first bridge call answered (the browser-mode server runs the core as main does).
  const baselineScript = join(mkdtempSync(join(tmpdir(), 'sb-startup-ws-')), 'bare-ws.mjs')
  writeFileSync(
    baselineScript,
    `import { WebSocketServer } from ${JSON.stringify(pathToFileURL(join(root, 'node_modules/ws/wrapper.mjs')).href)}\n` +
      `const wss = new WebSocketServer({ host: '127.0.0.1', port: Number(process.argv[2]) })\n` +
      `wss.on('connection', (ws) => ws.on('message', (m) => ws.send(JSON.stringify({ t: 'result', id: JSON.parse(m).id, result: { ok: true, value: {} } }))))\n`
  )
  const bridge: { server: number[]; bare: number[] } = { server: [], bare: [] }
  const call = { t: 'call', id: 1, proc: 'app.info', input: {} }
  for (let i = 0; i < 7; i++) {
    const dataDir = mkdtempSync(join(tmpdir(), 'sb-startup-data-'))
    let port = await freePort()
    bridge.server.push(
      await firstAnswer([join(root, 'out/main/server.js'), '--port', String(port), '--token', TOKEN], port, `${appPathFor(TOKEN)}bridge?token=${TOKEN}`, call, { ...process.env, SWITCHBOARD_DATA_DIR: dataDir })
    )
    port = await freePort()
    bridge.bare.push(await firstAnswer([baselineScript, String(port)], port, '/', call, process.env))
  }
  console.log('\nprocess start → first bridge call answered over the socket, 7 interleaved runs')
  report('core (out/main/server.js) app.info (median)', median(bridge.server), 'bare ws server process', median(bridge.bare), 'ms')

  // 4. The renderer's initial JavaScript.
  const js = rendererJs()
  const kb = (n: number) => `${(n / 1024).toFixed(0)} kB`
  console.log(`\nrenderer initial JS (minified): ${kb(js.initial)} (${js.files.join(', ')})   vs all renderer JS: ${kb(js.total)}   share ${((js.initial / js.total) * 100).toFixed(0)}%   goal: ≤ 1024 kB (${(js.initial / (1024 * 1024)).toFixed(2)}× the goal)`)
  console.log(`(median process figures: node -e 0 ${fmt(median(cli['node']!))})`)
}
