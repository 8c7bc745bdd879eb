import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import { acquireDataLock, liveLockHolder } from '../../../src/core/store/data-lock'
import { quitSequence } from '../../../src/main/policy/quit'
import { requestInstanceLock } from '../../../src/main/policy/instance-lock'

// "Restart to update" on the AppImage: electron-updater starts the new copy at once, while the
// old one is still closing. The new one must find the locks free, or wait for a holder that says
// it is closing — never quit and leave nothing running.
const repo = resolve(import.meta.dirname, '../../..')
const work = mkdtempSync(join(tmpdir(), 'sb-handover-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))
const running: ChildProcess[] = []
afterEach(() => {
  for (const child of running.splice(0)) if (child.exitCode === null) child.kill('SIGKILL')
})

/** A real process holding the data folder's lock: it says it is closing (or not), and releases it after `releaseAfterMs`. */
function holder(dataDir: string, opts: { quitting: boolean; releaseAfterMs: number }): Promise<ChildProcess> {
  const script = join(work, `holder-${running.length}.ts`)
  writeFileSync(
    script,
    `import { acquireDataLock } from ${JSON.stringify(join(repo, 'src/core/store/data-lock.ts'))}
const lock = acquireDataLock(${JSON.stringify(dataDir)}, 'the desktop app')
${opts.quitting ? 'lock.markQuitting()' : ''}
process.stdout.write('held\\n')
setTimeout(() => { lock.release(); setTimeout(() => process.exit(0), 2000) }, ${opts.releaseAfterMs})
`
  )
  const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: repo, stdio: ['ignore', 'pipe', 'inherit'] })
  running.push(child)
  return new Promise((done, fail) => {
    child.stdout!.on('data', (d: Buffer) => d.toString().includes('held') && done(child))
    child.on('exit', (code) => fail(new Error(`holder exited ${code}`)))
  })
}

describe('the lock hand-over of an update restart', () => {
  it('closing before the installer runs: the core closes and both locks are released before the new copy starts', async () => {
    const order: string[] = []
    const quit = quitSequence({
      close: async () => void order.push('core closed'),
      quitting: () => order.push('lock marked quitting'),
      release: () => order.push('locks released'),
      exit: (code) => order.push(`exit ${code}`),
      report: (error) => order.push(`report ${String(error)}`)
    })
    await quit.closeThen(() => order.push('installer starts the new copy'))
    expect(order).toEqual(['lock marked quitting', 'core closed', 'locks released', 'installer starts the new copy'])
    // electron-updater then quits the app: that will-quit goes straight through.
    expect(quit.onWillQuit()).toBe(false)
  })

  it('an installer that fails still ends the process (its core is closed)', async () => {
    const order: string[] = []
    const quit = quitSequence({ close: async () => undefined, release: () => order.push('released'), exit: (c) => order.push(`exit ${c}`), report: (e) => order.push(String(e)) })
    await quit.closeThen(() => {
      throw new Error('no installer')
    })
    expect(order).toEqual(['released', 'Error: no installer', 'exit 0'])
    vi.useFakeTimers()
    try {
      const quiet: string[] = []
      const stays = quitSequence({ close: async () => undefined, release: () => undefined, exit: () => quiet.push('exit'), report: () => undefined }, 10_000, 10_000)
      await stays.closeThen(() => undefined)
      await vi.advanceTimersByTimeAsync(10_000)
      expect(quiet).toEqual(['exit'])
    } finally {
      vi.useRealTimers()
    }
  })

  it('a new copy waits for the single-instance lock while the old one says it is closing, and only then', () => {
    let clock = 0
    const sleep = (ms: number) => void (clock += ms)
    let freeAt = 1_200
    expect(requestInstanceLock(() => clock >= freeAt, () => true, sleep, 15_000, () => clock)).toBe(true)
    expect(clock).toBe(1_200)
    clock = 0
    freeAt = Infinity
    expect(requestInstanceLock(() => false, () => true, sleep, 15_000, () => clock)).toBe(false)
    expect(clock).toBe(15_000)
    clock = 0
    expect(requestInstanceLock(() => false, () => false, sleep, 15_000, () => clock)).toBe(false)
    expect(clock).toBe(0)
  })

  it('two real processes on one data folder: the newcomer waits for a closing holder and takes the lock', async () => {
    const dataDir = join(work, 'data-quitting')
    const old = await holder(dataDir, { quitting: true, releaseAfterMs: 1_500 })
    expect(liveLockHolder(dataDir)?.quitting).toBeTypeOf('number')
    const started = Date.now()
    const lock = acquireDataLock(dataDir, 'the desktop app (updated)')
    expect(Date.now() - started).toBeGreaterThan(800)
    expect(liveLockHolder(dataDir)?.pid).toBe(process.pid)
    expect(old.exitCode).toBeNull() // the old process had not even exited yet
    lock.release()
  }, 30_000)

  it('a holder that is not closing is refused at once, and one that never lets go only for the bounded wait', async () => {
    const busy = join(work, 'data-busy')
    await holder(busy, { quitting: false, releaseAfterMs: 60_000 })
    const started = Date.now()
    expect(() => acquireDataLock(busy, 'another app')).toThrow(/already in use by another Switchboard/)
    expect(Date.now() - started).toBeLessThan(500)
    const stuck = join(work, 'data-stuck')
    await holder(stuck, { quitting: true, releaseAfterMs: 60_000 })
    expect(() => acquireDataLock(stuck, 'another app', { waitForQuittingMs: 1_000 })).toThrow(/already in use/)
  }, 30_000)
})
