import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { acquireDataLock, holderAlive, LOCK_FILE, machineId, sameMachine } from '../../../src/core/store/data-lock'

// A lock whose process is gone is stale on this machine even when the hostname it recorded is
// not today's (macOS renames the machine with the network); another machine's lock is not ours
// to judge.
const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})
const folder = () => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-lock-machine-'))
  dirs.push(dir)
  return dir
}
/** The pid of a process that has exited. */
const deadPid = () => spawnSync(process.execPath, ['-e', '0']).pid!

describe('the data lock across hostname changes', () => {
  it('reads this machine’s id', () => {
    if (process.platform === 'linux') expect(machineId()).toBe(readFileSync('/etc/machine-id', 'utf8').trim())
    expect(machineId()).toBe(machineId())
  })

  it('decides the machine by its id when both sides know it, else by hostname', () => {
    expect(sameMachine({ host: 'old-name.local', machine: 'm1' }, { host: 'new-name.local', machine: 'm1' })).toBe(true)
    expect(sameMachine({ host: 'same', machine: 'm1' }, { host: 'same', machine: 'm2' })).toBe(false)
    expect(sameMachine({ host: 'a' }, { host: 'a', machine: 'm1' })).toBe(true)
    expect(sameMachine({ host: 'a' }, { host: 'b', machine: 'm1' })).toBe(false)
  })

  it('holderAlive: a gone process on this machine is dead whatever the hostname; another machine’s is assumed alive', () => {
    const gone = () => false
    expect(holderAlive({ pid: 42, host: 'renamed', machine: 'm1', app: 'x', since: 0 }, { host: 'now', machine: 'm1' }, gone)).toBe(false)
    expect(holderAlive({ pid: 42, host: 'renamed', machine: 'm2', app: 'x', since: 0 }, { host: 'now', machine: 'm1' }, gone)).toBe(true)
    expect(holderAlive({ pid: 42, host: 'now', app: 'x', since: 0 }, { host: 'now', machine: 'm1' }, () => true)).toBe(true)
  })

  it.runIf(machineId() !== undefined)('takes over a dead process’s lock written under another hostname on this machine', () => {
    const dir = folder()
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: deadPid(), host: `${hostname()}-before-wifi`, machine: machineId(), app: 'the desktop app', since: 1 }))
    const lock = acquireDataLock(dir)
    try {
      const holder = JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8'))
      expect(holder).toMatchObject({ pid: process.pid, host: hostname(), machine: machineId() })
    } finally {
      lock.release()
    }
  })

  it('refuses a lock from another machine, naming it and how to choose another folder', () => {
    const dir = folder()
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: deadPid(), host: 'other-laptop', machine: 'not-this-machine', app: 'the desktop app', since: 1 }))
    expect(() => acquireDataLock(dir)).toThrow(/on other-laptop.*--data-dir DIR, or the SWITCHBOARD_DATA_DIR/)
  })
})
