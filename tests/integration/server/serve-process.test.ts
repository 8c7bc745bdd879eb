import { afterEach, describe, expect, it } from 'vitest'
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { appPathFor } from '../../../src/server/server'
import { openSocket, request } from './server-harness'

// The real `npm run serve` process: how the password and the token reach it.
const children: ChildProcess[] = []
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGTERM')
})

function serve(args: string[], env: Record<string, string> = {}, stdin?: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server/main.ts', '--port', '0', ...args], {
    env: { ...process.env, SWITCHBOARD_ACCESS_PASSWORD: '', SWITCHBOARD_TOKEN: '', ...env },
    stdio: ['pipe', 'pipe', 'pipe']
  })
  children.push(child)
  if (stdin !== undefined) child.stdin!.end(stdin)
  let output = ''
  return new Promise<{ url: string; output: string; child: ChildProcess }>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += String(chunk)
      const url = /Open (http:\/\/\S+)/.exec(output)?.[1]
      if (url) resolve({ url, output, child })
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', onData)
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${output}`)))
  })
}

async function unlocks(url: string, password: string) {
  const ws = await openSocket(`${url.replace('http', 'ws')}bridge`)
  const answer = await request(ws, { t: 'auth', id: 1, password })
  ws.close()
  return answer.t === 'auth' && answer.result.ok
}

describe('npm run serve', () => {
  it('takes the access password from a file, the environment or a prompt, never needing it on the command line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-serve-'))
    const file = join(dir, 'password')
    writeFileSync(file, 'from a file, long\n', { mode: 0o600 })
    const a = await serve(['--host', '127.0.0.1', '--password-file', file, '--data-dir', join(dir, 'a')])
    expect(await unlocks(a.url, 'from a file, long')).toBe(true)
    const b = await serve(['--data-dir', join(dir, 'b')], { SWITCHBOARD_ACCESS_PASSWORD: 'from the environment' })
    expect(await unlocks(b.url, 'from the environment')).toBe(true)
    const c = await serve(['--password-prompt', '--data-dir', join(dir, 'c')], {}, 'typed at the prompt\n')
    expect(await unlocks(c.url, 'typed at the prompt')).toBe(true)
    expect(await unlocks(c.url, 'something else')).toBe(false)
    // The password appears nowhere in what the process prints.
    expect(a.output + b.output + c.output).not.toMatch(/from a file|from the environment|typed at the prompt/)
  }, 60_000)

  it('keeps its token per data folder, readable only by the owner, until --new-token', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-serve-'))
    const first = await serve(['--data-dir', dir])
    first.child.kill('SIGTERM')
    const second = await serve(['--data-dir', dir])
    const token = new URL(first.url).searchParams.get('token')!
    expect(new URL(second.url).searchParams.get('token')).toBe(token)
    const stored = join(dir, 'browser-token')
    expect(readFileSync(stored, 'utf8')).toBe(token)
    expect(statSync(stored).mode & 0o777).toBe(0o600)
    // An open tab keeps working across the restart: its cookie and path are still valid.
    const base = new URL(second.url).origin
    const page = await fetch(`${base}${appPathFor(token)}`, { headers: { cookie: `switchboard_token=${token}` } })
    expect(page.status).not.toBe(403)
    second.child.kill('SIGTERM')
    const rotated = await serve(['--data-dir', dir, '--new-token'])
    const fresh = new URL(rotated.url).searchParams.get('token')!
    expect(fresh).not.toBe(token)
    expect(readFileSync(stored, 'utf8')).toBe(fresh)
    const old = await fetch(`${new URL(rotated.url).origin}${appPathFor(token)}`, { headers: { cookie: `switchboard_token=${token}` } })
    expect(old.status).toBe(403)
  }, 60_000)
})
