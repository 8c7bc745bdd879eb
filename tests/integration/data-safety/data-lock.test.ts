import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { acquireDataLock, LOCK_FILE, openStore } from '../../../src/core/store'

const root = mkdtempSync(join(tmpdir(), 'sb-lock-'))
const staticDir = join(root, 'renderer')
mkdirSync(staticDir, { recursive: true })
writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>Switchboard</title>')
afterAll(() => rmSync(root, { recursive: true, force: true }))
const running: ChildProcess[] = []
afterEach(() => {
  for (const child of running.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
})

const repo = join(import.meta.dirname, '../../..')

/** `npm run serve`'s entry point as a real process; resolves when it is serving or has exited. */
function serve(dataDir: string): Promise<{ child: ChildProcess; started: boolean; out: string; err: string; code: number | null }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(repo, 'src/server/main.ts'), '--data-dir', dataDir, '--port', '0', '--static-dir', staticDir, '--token', 'lock-test-token-0123456789'], {
      cwd: repo,
      env: { ...process.env, SWITCHBOARD_DATA_DIR: '' },
      stdio: ['ignore', 'pipe', 'pipe']
    })
    running.push(child)
    let out = ''
    let err = ''
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      if (out.includes('Switchboard is running')) resolve({ child, started: true, out, err, code: null })
    })
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()))
    child.on('exit', (code) => resolve({ child, started: false, out, err, code }))
  })
}

const exited = (child: ChildProcess) => new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())))

describe('one owner per data folder', () => {
  it('a second server on the same folder refuses, naming the folder and the other process; a dead holder’s lock is taken over', async () => {
    const dataDir = join(root, 'shared')
    const first = await serve(dataDir)
    expect(first.started, first.err).toBe(true)
    const holder = JSON.parse(readFileSync(join(dataDir, LOCK_FILE), 'utf8')) as { pid: number; app: string }
    expect(holder.pid).toBe(first.child.pid)

    const second = await serve(dataDir)
    expect(second.started).toBe(false)
    expect(second.code).toBe(1)
    expect(second.err).toContain(dataDir)
    expect(second.err).toContain(`process ${first.child.pid}`)
    expect(second.err).toMatch(/already in use by another Switchboard \(browser mode/)
    // The refused one touched nothing: the first still holds the folder.
    expect(JSON.parse(readFileSync(join(dataDir, LOCK_FILE), 'utf8')).pid).toBe(first.child.pid)

    // Killed without a chance to clean up: its lock file stays, but its process is gone.
    first.child.kill('SIGKILL')
    await exited(first.child)
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(true)
    const third = await serve(dataDir)
    expect(third.started, third.err).toBe(true)
    expect(JSON.parse(readFileSync(join(dataDir, LOCK_FILE), 'utf8')).pid).toBe(third.child.pid)

    // A clean stop releases the folder.
    third.child.kill('SIGTERM')
    await exited(third.child)
    expect(existsSync(join(dataDir, LOCK_FILE)), `${third.err} ${third.child.exitCode} ${third.child.signalCode} ${third.out} ${existsSync(join(dataDir, LOCK_FILE)) ? readFileSync(join(dataDir, LOCK_FILE), 'utf8') : ''}`).toBe(false)
  }, 60_000)

  it('the store refuses to open a folder another live process holds, and says which', async () => {
    const dataDir = join(root, 'held')
    const server = await serve(dataDir)
    expect(server.started, server.err).toBe(true)
    expect(() => openStore({ dataDir, dailyBackupMs: 0 })).toThrow(new RegExp(`in use by another Switchboard .*process ${server.child.pid}`))
    expect(() => acquireDataLock(dataDir)).toThrow(/Close the other one/)
  }, 60_000)
})
