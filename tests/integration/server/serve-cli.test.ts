import { afterEach, describe, expect, it } from 'vitest'
import { spawn, type ChildProcess } from 'node:child_process'
import { createServer, type Server } from 'node:net'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

// `serve` as a user first meets it: --help answers, and a port in use is a sentence, not a stack.
const children: ChildProcess[] = []
const servers: Server[] = []
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGTERM')
  for (const server of servers.splice(0)) server.close()
})

function run(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server/main.ts', ...args], {
    env: { ...process.env, SWITCHBOARD_ACCESS_PASSWORD: '', SWITCHBOARD_TOKEN: '' },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  children.push(child)
  let out = ''
  let err = ''
  child.stdout!.on('data', (d: Buffer) => (out += String(d)))
  child.stderr!.on('data', (d: Buffer) => (err += String(d)))
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, out, err })))
}

describe('serve on the command line', () => {
  it('--help prints the options and exits 0', async () => {
    const r = await run(['--help'])
    expect(r.code).toBe(0)
    expect(r.out).toMatch(/--port N/)
    expect(r.out).toMatch(/--data-dir DIR/)
    expect(r.out).toMatch(/\?token=/)
    expect(r.err).not.toMatch(/Unknown option/)
  }, 60_000)

  it('a port in use says so and how to choose another, without a stack trace', async () => {
    const blocker = createServer()
    servers.push(blocker)
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', () => resolve()))
    const port = (blocker.address() as { port: number }).port
    const r = await run(['--port', String(port), '--data-dir', mkdtempSync(join(tmpdir(), 'sb-serve-busy-'))])
    expect(r.code).toBe(1)
    expect(r.err).toMatch(new RegExp(`Port ${port} on 127.0.0.1 is already in use`))
    expect(r.err).toMatch(/--port N/)
    expect(r.err).not.toMatch(/EADDRINUSE|at Server\./)
  }, 60_000)
})
