import { createServer } from 'node:http'
import { createReadStream, existsSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { extname, join, normalize } from 'node:path'
import { build } from 'vite'
import react from '@vitejs/plugin-react'
import tailwindcss from '@tailwindcss/vite'
import { chromium } from '@playwright/test'

// Chat render benchmark (issue 7): a 30,000-token reply streamed one token per event into a
// conversation with 1,000 earlier messages, in Chromium. Ours (chat store committing every
// ~50 ms, virtualised list, memoised finished markdown blocks) next to a naive baseline that
// re-renders the whole reply with react-markdown on every event, in the same run.
declare global {
  interface Window {
    benchDone?: Promise<{ events: number; ms: number }>
    benchStart?: () => void
  }
}

const TOKENS = Number(process.env['RENDER_BENCH_TOKENS'] ?? 30_000)

interface Result {
  events: number
  wallMs: number
  scriptingMs: number
  longTasks: number
  longTasksOver100: number
  longestTaskMs: number
  medianFrameMs: number
  p95FrameMs: number
}

async function serve(dir: string) {
  const types: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.woff2': 'font/woff2', '.woff': 'font/woff', '.ttf': 'font/ttf' }
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '')
    const file = join(dir, path === '/' ? 'index.html' : path)
    if (!file.startsWith(dir) || !existsSync(file)) return void res.writeHead(404).end()
    res.writeHead(200, { 'Content-Type': types[extname(file)] ?? 'application/octet-stream' })
    createReadStream(file).pipe(res)
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address() as { port: number }
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((r) => server.close(() => r())) }
}

async function measure(url: string): Promise<Result> {
  const browser = await chromium.launch({
    executablePath: process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic']
  })
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
    // tsx compiles this file with keepNames, which wraps functions passed to evaluate in __name().
    await page.addInitScript('globalThis.__name = (f) => f')
    await page.goto(url)
    await page.waitForFunction(() => typeof window.benchStart === 'function')
    await page.waitForTimeout(500) // let the first paint of the history settle
    const cdp = await page.context().newCDPSession(page)
    await cdp.send('Performance.enable')
    const scripting = async () => {
      const { metrics } = await cdp.send('Performance.getMetrics')
      return (metrics.find((m) => m.name === 'ScriptDuration')?.value ?? 0) * 1000
    }
    const before = await scripting()
    const result = await page.evaluate(async () => {
      const longTasks: number[] = []
      new PerformanceObserver((list) => list.getEntries().forEach((e) => longTasks.push(e.duration))).observe({ type: 'longtask', buffered: false })
      const frames: number[] = []
      let last = performance.now()
      let running = true
      const frame = (t: number) => {
        frames.push(t - last)
        last = t
        if (running) requestAnimationFrame(frame)
      }
      requestAnimationFrame(frame)
      window.benchStart!()
      const done = await window.benchDone!
      await new Promise((r) => setTimeout(r, 300))
      running = false
      const sorted = [...frames].sort((a, b) => a - b)
      return {
        events: done.events,
        wallMs: done.ms,
        longTasks: longTasks.filter((d) => d > 50).length,
        longTasksOver100: longTasks.filter((d) => d > 100).length,
        longestTaskMs: Math.max(0, ...longTasks),
        medianFrameMs: sorted[Math.floor(sorted.length / 2)] ?? 0,
        p95FrameMs: sorted[Math.floor(sorted.length * 0.95)] ?? 0
      }
    })
    const scriptingMs = (await scripting()) - before
    return { ...result, scriptingMs }
  } finally {
    await browser.close()
  }
}

const row = (label: string, r: Result) =>
  console.log(
    `${label.padEnd(34)} scripting ${r.scriptingMs.toFixed(0).padStart(7)} ms   wall ${r.wallMs.toFixed(0).padStart(6)} ms   median frame ${r.medianFrameMs.toFixed(1).padStart(6)} ms   p95 frame ${r.p95FrameMs.toFixed(1).padStart(6)} ms   long tasks >50 ms: ${r.longTasks} (>100 ms: ${r.longTasksOver100}, longest ${r.longestTaskMs.toFixed(0)} ms)`
  )

export default async function bench() {
  if (!existsSync(process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium')) {
    console.log('render bench skipped: no Chromium (apt-get install -y chromium, or set CHROMIUM_PATH)')
    return
  }
  const outDir = mkdtempSync(join(tmpdir(), 'sb-render-bench-'))
  const root = join(import.meta.dirname, 'render')
  await build({ root, base: './', logLevel: 'error', plugins: [react(), tailwindcss()], build: { outDir, emptyOutDir: true, minify: true } })
  const server = await serve(outDir)
  try {
    // RENDER_BENCH_CASES=competition runs only the Chat Competition case (issue 18).
    if (process.env['RENDER_BENCH_CASES'] === 'competition') return await competitionCase(server.url)
    const query = `tokens=${TOKENS}&history=1000&perTick=10&tickMs=5`
    console.log(`${TOKENS.toLocaleString('en')}-token reply, one token per event, into 1,000 earlier messages (Chromium, production build)`)
    const ours = await measure(`${server.url}/?mode=ours&${query}`)
    row('ours (store + virtual list + memo)', ours)
    // RENDER_BENCH_NAIVE=0 skips the baseline while iterating (it takes minutes at 30,000 tokens).
    if (process.env['RENDER_BENCH_NAIVE'] === '0') return
    const naive = await measure(`${server.url}/?mode=naive&${query}`)
    row('naive react-markdown per event', naive)
    console.log(
      `scripting time ratio naive/ours: ${(naive.scriptingMs / ours.scriptingMs).toFixed(1)}×   goal ≥ 5×; ours has ${ours.longTasksOver100} long task(s) over 100 ms   goal: 0`
    )
    await competitionCase(server.url)
  } finally {
    await server.close()
  }
}

const COMPETITION_TOKENS = Number(process.env['RENDER_BENCH_COMPETITION_TOKENS'] ?? 5_000)

/**
 * Chat Competition (issue 18): 4 replies of 5,000 tokens streaming at once into side-by-side
 * columns (1280 px wide), after 200 earlier messages. Ours: the real store, message list and
 * competition columns. Baseline: 4 react-markdown renders, each re-rendered on every event of its reply.
 */
async function competitionCase(url: string) {
  const query = `tokens=${COMPETITION_TOKENS}&replies=4&history=200&perTick=10&tickMs=5`
  console.log(`\nChat Competition: 4 parallel ${COMPETITION_TOKENS.toLocaleString('en')}-token replies, one token per event each, side by side`)
  const ours = await measure(`${url}/?mode=competition&${query}`)
  row('ours (store + competition columns)', ours)
  if (process.env['RENDER_BENCH_NAIVE'] === '0') return
  const naive = await measure(`${url}/?mode=competition-naive&${query}`)
  row('4 naive react-markdown renders', naive)
  console.log(
    `competition scripting time ratio naive/ours: ${(naive.scriptingMs / ours.scriptingMs).toFixed(1)}×; ours has ${ours.longTasksOver100} long task(s) over 100 ms (longest ${ours.longestTaskMs.toFixed(0)} ms)   goal: 0`
  )
}
