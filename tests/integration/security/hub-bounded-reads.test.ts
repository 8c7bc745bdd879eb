import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { Readable } from 'node:stream'
import { createGzip } from 'node:zlib'
import { afterEach, describe, expect, it } from 'vitest'
import { knownHeader } from '../../fixtures/gguf-headers/write-gguf'

// A broken or hostile hub answers a file list or a manifest with a gzip bomb or a body that
// never ends, or goes silent in the middle of a header read. The real CLI must stop at a
// bounded size (counted after decompression) and after a bounded silence, say which hub and
// what was refused, and never grow without bound.

const cli = resolve(import.meta.dirname, '../../../out/main/cli.js')
const MB = 1024 * 1024
/** The server stops by itself past this, so a CLI without a cap cannot take the machine down. */
const SERVER_CAP = 1536 * MB
/** A CLI child past this resident size is killed: the cap did not hold. */
const KILL_RSS = 900 * MB

/** An endless body: `prefix`, then `unit` again and again (up to SERVER_CAP), gzipped when asked. */
function endless(res: ServerResponse, prefix: string, unit: string, gzip: boolean, contentType: string) {
  const chunk = Buffer.from(unit.repeat(Math.ceil((256 * 1024) / unit.length)))
  let sent = 0
  const source = new Readable({
    read() {
      if (sent === 0) this.push(prefix)
      if (sent > SERVER_CAP) return this.push(null)
      sent += chunk.length
      this.push(chunk)
    }
  })
  res.writeHead(200, { 'Content-Type': contentType, ...(gzip ? { 'Content-Encoding': 'gzip' } : {}) })
  const body = gzip ? source.pipe(createGzip({ level: 1 })) : source
  body.pipe(res)
  res.on('close', () => source.destroy())
}

const header = knownHeader('llama-3-8b')

async function hostileHub(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname
    if (path === '/api/models/evil/Bomb-GGUF/tree/main') return endless(res, '[', '     ', true, 'application/json')
    if (path === '/api/models/evil/Endless-GGUF/tree/main') return endless(res, '[', '{"type":"file","path":"a-Q4_K_M.gguf","size":1},', false, 'application/json')
    if (path === '/v2/library/bomb/manifests/latest') return endless(res, '{"layers":[', '  ', true, 'application/vnd.docker.distribution.manifest.v2+json')
    if (path === '/api/models/evil/Silent-GGUF/tree/main') {
      res.writeHead(200, { 'Content-Type': 'application/json' })
      return res.end(JSON.stringify([{ type: 'file', path: 'silent-Q4_K_M.gguf', size: 4_920_000_000, oid: 'x', lfs: { oid: 'a'.repeat(64), size: 4_920_000_000 } }]))
    }
    if (path === '/evil/Silent-GGUF/resolve/main/silent-Q4_K_M.gguf') {
      // The first bytes of the header, then nothing: the socket stays open and silent.
      const m = /bytes=(\d+)-(\d+)/.exec(req.headers.range ?? '')
      const end = m ? Number(m[2]) : header.length - 1
      res.writeHead(206, { 'Content-Type': 'application/octet-stream', 'Content-Length': end + 1, 'Content-Range': `bytes 0-${end}/4920000000` })
      res.write(header.subarray(0, 64))
      return
    }
    res.writeHead(404, { 'Content-Type': 'application/json' })
    res.end('{"error":"not found"}')
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections()
        server.close(() => r())
      })
  }
}

interface Run {
  code: number | null
  stderr: string
  stdout: string
  ms: number
  /** Peak resident size of the CLI process (its own maxRSS at exit, else the highest seen in /proc). */
  peakRss: number
  killed: boolean
}

function runCli(args: string[]): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), 'sb-hub-bounded-'))
  const hook = join(dir, 'rss.mjs')
  const rssFile = join(dir, 'rss')
  writeFileSync(hook, `import { writeFileSync } from 'node:fs'\nprocess.on('exit', () => writeFileSync(${JSON.stringify(rssFile)}, String(process.resourceUsage().maxRSS * 1024)))\n`)
  const started = Date.now()
  return new Promise((done) => {
    const child = spawn(process.execPath, ['--import', hook, cli, ...args], { env: { ...process.env, SWITCHBOARD_DATA_DIR: join(dir, 'data'), HF_TOKEN: '' }, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    let seen = 0
    let killed = false
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    const watch = setInterval(() => {
      try {
        const rss = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0) * 1024
        seen = Math.max(seen, rss)
        if (rss > KILL_RSS && !killed) {
          killed = true
          child.kill('SIGKILL')
        }
      } catch {
        // Gone already.
      }
    }, 50)
    const deadline = setTimeout(() => {
      killed = true
      child.kill('SIGKILL')
    }, 55_000)
    child.once('exit', (code) => {
      clearInterval(watch)
      clearTimeout(deadline)
      let peakRss = seen
      try {
        peakRss = Math.max(seen, Number(readFileSync(rssFile, 'utf8')))
      } catch {
        // Killed before its exit hook ran: what /proc showed.
      }
      done({ code, stdout, stderr, ms: Date.now() - started, peakRss, killed })
    })
  })
}

let hub: Awaited<ReturnType<typeof hostileHub>> | undefined
afterEach(async () => {
  await hub?.close()
  hub = undefined
})

describe('a hub cannot grow the CLI without bound or hang it', () => {
  it('a gzip bomb for a file list is refused at the cap, with the hub named, in bounded memory and time', async () => {
    hub = await hostileHub()
    const run = await runCli(['models', 'files', 'evil/Bomb-GGUF', '--hub', hub.url])
    expect(run.killed).toBe(false)
    expect(run.code).not.toBe(0)
    expect(run.stderr).toContain(`the hub at ${new URL(hub.url).host}`)
    expect(run.stderr).toMatch(/sent more than 8 MB for the file list of evil\/Bomb-GGUF \(counted after decompression\): it was refused/)
    expect(run.peakRss).toBeLessThan(400 * MB)
    expect(run.ms).toBeLessThan(20_000)
  }, 60_000)

  it('an endless file list is refused at the cap', async () => {
    hub = await hostileHub()
    const run = await runCli(['pull', 'hf:evil/Endless-GGUF', '--hub', hub.url])
    expect(run.killed).toBe(false)
    expect(run.code).not.toBe(0)
    expect(run.stderr).toMatch(/sent more than 8 MB for the file list of evil\/Endless-GGUF/)
    expect(run.peakRss).toBeLessThan(400 * MB)
    expect(run.ms).toBeLessThan(20_000)
  }, 60_000)

  it('a gzip bomb for an Ollama manifest is refused at the cap, with the registry named', async () => {
    hub = await hostileHub()
    const run = await runCli(['pull', 'ollama:bomb', '--registry', hub.url])
    expect(run.killed).toBe(false)
    expect(run.code).not.toBe(0)
    expect(run.stderr).toMatch(new RegExp(`the Ollama registry at ${new URL(hub.url).host.replace(/\./g, '\\.')} sent more than 1 MB for the manifest of bomb:latest`))
    expect(run.peakRss).toBeLessThan(400 * MB)
    expect(run.ms).toBeLessThan(20_000)
  }, 60_000)

  it('a hub that goes silent in the middle of a header read: models files ends with the files and a clear error, not never', async () => {
    hub = await hostileHub()
    const run = await runCli(['models', 'files', 'evil/Silent-GGUF', '--hub', hub.url])
    expect(run.killed).toBe(false)
    expect(run.stdout).toMatch(/Q4_K_M .*silent-Q4_K_M\.gguf/)
    expect(run.stderr).toMatch(/Could not read the model's header.*stopped sending the header of silent-Q4_K_M\.gguf for 15 s/)
    expect(run.ms).toBeLessThan(35_000)
  }, 60_000)
})
