import { execFileSync } from 'node:child_process'
import { closeSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs'
import { hostname } from 'node:os'
import { join, resolve } from 'node:path'
import { storeError } from './errors'
import { ensurePrivateDir } from '../files/private-files'

export const LOCK_FILE = 'switchboard.lock'
export const DataLockErrorType = 'DataFolderInUse'

/** What the lock file says about its holder. */
export interface LockHolder {
  pid: number
  host: string
  /** What holds it: "the desktop app", "browser mode (npm run serve)", a CLI command… */
  app: string
  since: number
  /** The process's start time (Linux), so a pid reused by an unrelated process is not taken for the holder. */
  startTicks?: string
  /** The machine's id (it stays when the hostname changes, as macOS's does with the network). */
  machine?: string
  /** When its holder began closing (the app quitting, an update restarting it): a newcomer waits for it. */
  quitting?: number
}

export interface DataLock {
  readonly dataDir: string
  readonly file: string
  /** Says in the lock file that this holder is closing and will release it shortly. */
  markQuitting(): void
  release(): void
}

/** How long a newcomer waits for a holder that said it is closing (the core's close is cut off after 10 s). */
export const QUITTING_HOLDER_WAIT_MS = 15_000

/** The kernel's start time of a process (field 22 of /proc/<pid>/stat), or undefined off Linux. */
function startTicks(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The command name (field 2) may hold spaces and parentheses: count from the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]
  } catch {
    return undefined
  }
}

/** Whether a process with this id runs on this machine (EPERM: it does, as another user's). */
export function processRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM'
  }
}

let cachedMachineId: string | undefined | null = null

/**
 * This machine's stable id: systemd's machine-id on Linux, the hardware UUID on macOS, the
 * installation's MachineGuid on Windows; undefined when it cannot be read.
 */
export function machineId(): string | undefined {
  if (cachedMachineId !== null) return cachedMachineId
  cachedMachineId = undefined
  try {
    if (process.platform === 'linux') {
      for (const file of ['/etc/machine-id', '/var/lib/dbus/machine-id']) {
        try {
          const id = readFileSync(file, 'utf8').trim()
          if (id) return (cachedMachineId = id)
        } catch {
          // Try the next place.
        }
      }
    } else if (process.platform === 'darwin') {
      const out = execFileSync('/usr/sbin/ioreg', ['-rd1', '-c', 'IOPlatformExpertDevice'], { encoding: 'utf8', timeout: 2000 })
      cachedMachineId = /"IOPlatformUUID" = "([^"]+)"/.exec(out)?.[1]
    } else if (process.platform === 'win32') {
      const out = execFileSync('reg', ['query', 'HKLM\\SOFTWARE\\Microsoft\\Cryptography', '/v', 'MachineGuid'], { encoding: 'utf8', timeout: 2000, windowsHide: true })
      cachedMachineId = /MachineGuid\s+REG_SZ\s+(\S+)/.exec(out)?.[1]
    }
  } catch {
    // Unknown: the hostname decides.
  }
  return cachedMachineId
}

/** Whether a lock holder is this machine: by machine id when both sides know it (the hostname may have changed since), else by hostname. */
export function sameMachine(holder: Pick<LockHolder, 'host' | 'machine'>, here: { host: string; machine?: string | undefined }): boolean {
  if (holder.machine && here.machine) return holder.machine === here.machine
  return holder.host === here.host
}

/** Whether the process that wrote `holder` is still running (on this machine). */
export function holderAlive(holder: LockHolder, here: { host: string; machine?: string | undefined } = { host: hostname(), machine: machineId() }, running = processRunning): boolean {
  if (!sameMachine(holder, here)) return true // cannot tell for another machine: assume it is
  if (!running(holder.pid)) return false
  const ticks = startTicks(holder.pid)
  return !(holder.startTicks && ticks && ticks !== holder.startTicks)
}

function readHolder(file: string): LockHolder | undefined {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<LockHolder>
    if (typeof parsed.pid === 'number' && typeof parsed.host === 'string') {
      return {
        pid: parsed.pid,
        host: parsed.host,
        app: String(parsed.app ?? 'Switchboard'),
        since: Number(parsed.since ?? 0),
        ...(parsed.startTicks ? { startTicks: parsed.startTicks } : {}),
        ...(typeof parsed.machine === 'string' && parsed.machine ? { machine: parsed.machine } : {}),
        ...(typeof parsed.quitting === 'number' ? { quitting: parsed.quitting } : {})
      }
    }
  } catch {
    // Unreadable or half-written: decided below.
  }
  return undefined
}

/** The process holding a data folder's lock while it runs (undefined: nobody, or a holder that is gone). */
export function liveLockHolder(folder: string): LockHolder | undefined {
  const holder = readHolder(join(resolve(folder), LOCK_FILE))
  return holder && holderAlive(holder) ? holder : undefined
}

export function inUseMessage(dataDir: string, holder: LockHolder): string {
  const where = sameMachine(holder, { host: hostname(), machine: machineId() }) ? '' : ` on ${holder.host}`
  const since = holder.since ? ` since ${new Date(holder.since).toISOString().slice(0, 16).replace('T', ' ')} UTC` : ''
  return (
    `The data folder ${dataDir} is already in use by another Switchboard (${holder.app}, process ${holder.pid}${where}${since}). ` +
    'Two at once would overwrite each other\'s replies, so this one did not open it. Close the other one, or start this one with another data folder (--data-dir DIR, or the SWITCHBOARD_DATA_DIR environment variable).'
  )
}

/** Locks held by this process, so the entry point and the store it opens share one lock. */
const held = new Map<string, { lock: DataLock; count: number }>()

/**
 * Takes the exclusive lock on a data folder for this process's lifetime: a lock file created
 * with O_EXCL holding our pid. A lock whose process is gone (killed, crashed) is taken over; a
 * live one makes this throw `DataFolderInUse` naming the folder and the other process, unless
 * it said it is closing: then this waits for it, up to `waitForQuittingMs` (an update's restart
 * starts the new copy while the old one is still closing). Re-entrant within one process
 * (counted), released on exit.
 */
export function acquireDataLock(folder: string, app = 'Switchboard', options: { waitForQuittingMs?: number } = {}): DataLock {
  const waitUntil = Date.now() + (options.waitForQuittingMs ?? QUITTING_HOLDER_WAIT_MS)
  const dataDir = resolve(folder)
  const mine = held.get(dataDir)
  if (mine) {
    mine.count++
    return mine.lock
  }
  ensurePrivateDir(dataDir)
  const file = join(dataDir, LOCK_FILE)
  const machine = machineId()
  const me: LockHolder = { pid: process.pid, host: hostname(), app, since: Date.now(), ...(startTicks(process.pid) ? { startTicks: startTicks(process.pid)! } : {}), ...(machine ? { machine } : {}) }
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600)
      try {
        writeSync(fd, JSON.stringify(me))
      } catch (error) {
        // A full disk: leave no empty lock file behind.
        closeSync(fd)
        rmSync(file, { force: true })
        throw error
      }
      closeSync(fd)
      break
    } catch (error) {
      if ((error as { code?: string }).code !== 'EEXIST' || attempt > 5) throw error
    }
    const holder = readHolder(file)
    if (holder && holder.pid !== process.pid && holderAlive(holder) && holder.quitting !== undefined && Date.now() < waitUntil) {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100)
      attempt = -1
      continue
    }
    if (holder && holder.pid !== process.pid && holderAlive(holder)) throw storeError(DataLockErrorType, inUseMessage(dataDir, holder), 423, { pid: holder.pid, host: holder.host })
    if (!holder && attempt === 0) {
      // Just created by someone else and not written yet, or left half-written by a crash: look again shortly.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50)
      continue
    }
    // Stale (its process is gone): move it out of the way atomically, so of two processes taking
    // it over at once only one succeeds in creating the new file.
    try {
      renameSync(file, `${file}.stale-${process.pid}`)
      rmSync(`${file}.stale-${process.pid}`, { force: true })
    } catch {
      // Someone else moved it first; try again.
    }
  }
  let released = false
  const release = () => {
    if (released) return
    released = true
    process.off('exit', release)
    // Only remove the file if it is still ours.
    if (readHolder(file)?.pid === process.pid) rmSync(file, { force: true })
  }
  process.on('exit', release)
  const lock: DataLock = {
    dataDir,
    file,
    markQuitting() {
      if (released || readHolder(file)?.pid !== process.pid) return
      // Replaced whole (a rename), so a reader never sees a half-written file and takes it for stale.
      const next = `${file}.quitting-${process.pid}`
      try {
        writeFileSync(next, JSON.stringify({ ...me, quitting: Date.now() }), { mode: 0o600 })
        renameSync(next, file)
      } catch {
        rmSync(next, { force: true })
      }
    },
    release() {
      const entry = held.get(dataDir)
      if (!entry) return
      if (--entry.count > 0) return
      held.delete(dataDir)
      release()
    }
  }
  held.set(dataDir, { lock, count: 1 })
  return lock
}
