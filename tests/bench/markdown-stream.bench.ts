import { createServer } from 'node:http'
import { createReadStream, existsSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { extname, join, normalize } from 'node:path'
import { build } from 'vite'
import react from '@vitejs/plugin-react'
import tailwindcss from '@tailwindcss/vite'
import { chromium, type Page } from '@playwright/test'

// Streaming-markdown benchmark (issue 20): model output that used to re-render quadratically
// while it streamed, grown in 300 updates (one task each, as the chat store commits) and then
// finished, in Chromium. Our Markdown component next to the same text shown as plain text
// (what any update costs anyway), measured in the same run. Goal: a small constant ratio and
// no long task over 100 ms.
declare global {
  interface Window {
    benchRun?: (text: string, updates: number) => Promise<{ ms: number; longTasks: number[]; updateMs: number[] }>
  }
}

const UPDATES = Number(process.env['MARKDOWN_BENCH_UPDATES'] ?? 300)

function words(chars: number): string {
  const vocabulary = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta', 'iota', 'kappa']
  let out = ''
  for (let i = 0; out.length < chars; i++) out += `${vocabulary[(i * 7) % vocabulary.length]} `
  return out.slice(0, chars)
}

const CASES: { name: string; text: string }[] = [
  { name: '300,000-character single line', text: words(300_000) },
  { name: '`*a` × 20,000', text: '*a'.repeat(20_000) },
  { name: '500-level nested list', text: Array.from({ length: 500 }, (_, i) => `${'  '.repeat(i)}- item ${i}`).join('\n') }
]

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

async function run(page: Page, text: string) {
  return page.evaluate(([t, n]) => window.benchRun!(t as string, n as number), [text, UPDATES] as const)
}

export default async function bench() {
  if (!existsSync(process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium')) {
    console.log('markdown-stream bench skipped: no Chromium (apt-get install -y chromium, or set CHROMIUM_PATH)')
    return
  }
  const outDir = mkdtempSync(join(tmpdir(), 'sb-markdown-bench-'))
  await build({ root: join(import.meta.dirname, 'markdown-stream'), base: './', logLevel: 'error', plugins: [react(), tailwindcss()], build: { outDir, emptyOutDir: true, minify: true } })
  const server = await serve(outDir)
  const browser = await chromium.launch({
    executablePath: process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic']
  })
  try {
    const open = async (mode: string) => {
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
      await page.addInitScript('globalThis.__name = (f) => f') // tsx's keepNames wrapper
      await page.goto(`${server.url}/?mode=${mode}`)
      await page.waitForFunction(() => typeof window.benchRun === 'function')
      return page
    }
    const ours = await open('ours')
    const plain = await open('plain')
    console.log(`Each case grown in ${UPDATES} updates, then finished (Chromium, production build); baseline: the same text as plain text`)
    let worstRatio = 0
    let over100 = 0
    for (const c of CASES) {
      const base = await run(plain, c.text)
      const mine = await run(ours, c.text)
      const ratio = mine.ms / base.ms
      worstRatio = Math.max(worstRatio, ratio)
      const long = mine.longTasks.filter((d) => d > 100)
      const sorted = [...mine.updateMs].sort((a, b) => a - b)
      const p95 = sorted[Math.floor(sorted.length * 0.95)] ?? 0
      const lastUpdate = mine.updateMs.at(-1) ?? 0
      over100 += long.length
      console.log(
        `${c.name.padEnd(32)} markdown ${mine.ms.toFixed(0).padStart(6)} ms   plain text ${base.ms.toFixed(0).padStart(6)} ms   ratio ${ratio.toFixed(1).padStart(5)}×   ` +
          `render per update p95 ${p95.toFixed(1)} ms, final ${lastUpdate.toFixed(1)} ms   ` +
          `long tasks >100 ms: ${long.length} (longest ${Math.max(0, ...mine.longTasks).toFixed(0)} ms; plain text: ${base.longTasks.filter((d) => d > 100).length})`
      )
    }
    console.log(`worst ratio ${worstRatio.toFixed(1)}×; long tasks over 100 ms: ${over100}   goal: 0`)
  } finally {
    await browser.close()
    await server.close()
  }
}
