import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { contract } from '../../../src/shared/bridge/contract'

const root = mkdtempSync(join(tmpdir(), 'sb-every-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
const child = join(import.meta.dirname, 'every-procedure-child.ts')

interface Report {
  phase: string
  detail?: string
  answers: Array<{ proc: string; kind: string; outcome: 'ok' | 'error' | 'pending'; errorType?: string; message?: string }>
  stillUp: boolean
  uncaught: number
}

/**
 * Runs the child. `mount` runs it in a private mount namespace (`unshare -rm`, no privileges
 * needed) with the data folder on a tmpfs: read-only, or full. Real file systems, real errors.
 */
function run(dataDir: string, mode: 'starting' | 'settled' | 'filled', mount?: 'read-only' | 'full' | 'room'): Report {
  const node = `${JSON.stringify(process.execPath)} --import tsx ${JSON.stringify(child)} ${JSON.stringify(dataDir)} ${mode}`
  const script = !mount
    ? `exec ${node}`
    : mount === 'read-only'
      ? `mount -t tmpfs -o ro,size=1m tmpfs ${JSON.stringify(dataDir)} && exec ${node}`
      : mount === 'room'
        ? `mount -t tmpfs -o size=16m tmpfs ${JSON.stringify(dataDir)} && exec ${node}`
        : `mount -t tmpfs -o size=512k tmpfs ${JSON.stringify(dataDir)} && (dd if=/dev/zero of=${JSON.stringify(join(dataDir, 'filler'))} bs=4k >/dev/null 2>&1; true) && exec ${node}`
  const command = mount ? ['unshare', '-rm', 'sh', '-c', script] : ['sh', '-c', script]
  const result = spawnSync(command[0]!, command.slice(1), { encoding: 'utf8', timeout: 170_000, cwd: join(import.meta.dirname, '../../..') })
  expect(result.status, `child failed: ${result.stderr}`).toBe(0)
  const line = result.stdout.trim().split('\n').pop()!
  return JSON.parse(line) as Report
}

/** Streams that legitimately keep running while start-up waits (they answer when it ends). */
const MAY_WAIT_WHILE_STARTING = new Set(['app.initProgress', 'app.retryInit'])
/** Streams that, once the data is open, run until the window closes (they report as things change). */
const RUN_WHILE_OPEN = new Set(['sync.watch'])

function expectEveryProcedureAnswered(report: Report, mayWait: Set<string> = new Set()) {
  expect(report.uncaught).toBe(0)
  expect(report.stillUp).toBe(true)
  expect(report.answers.map((a) => a.proc).sort()).toEqual(Object.keys(contract).sort())
  const silent = report.answers.filter((a) => a.outcome === 'pending' && !mayWait.has(a.proc)).map((a) => a.proc)
  expect(silent).toEqual([])
  for (const answer of report.answers) {
    if (answer.outcome !== 'error') continue
    expect(answer.message, answer.proc).toBeTruthy()
    expect(answer.message, answer.proc).not.toMatch(/\.\./)
    expect(answer.errorType, `${answer.proc}: ${answer.message}`).not.toBe('InternalError')
  }
}

const notReadyAnswers = (report: Report) => report.answers.filter((a) => a.errorType === 'DataNotReady')

describe('every procedure in every start-up state: the process stays up and answers truthfully', { timeout: 180_000 }, () => {
  it('while start-up is still running (a keychain probe that does not answer)', () => {
    const report = run(join(root, 'starting'), 'starting')
    expect(report.phase).toBe('migrating')
    expectEveryProcedureAnswered(report, MAY_WAIT_WHILE_STARTING)
    const byProc = new Map(report.answers.map((a) => [a.proc, a]))
    for (const proc of ['chat.send', 'chat.regenerate', 'chat.editAndResend', 'chat.continue', 'images.generate']) {
      expect(byProc.get(proc)?.outcome, proc).toBe('error')
      expect(byProc.get(proc)?.message, proc).toMatch(/still starting/)
    }
  })

  it('after a database of a newer version was refused', () => {
    const dataDir = join(root, 'newer')
    mkdirSync(dataDir, { recursive: true })
    const db = new BetterSqlite3(join(dataDir, 'switchboard.db'))
    db.exec('CREATE TABLE future (x)')
    db.pragma('user_version = 999')
    db.close()
    const report = run(dataDir, 'settled')
    expect(report.phase).toBe('error')
    expect(report.detail).toMatch(/newer version of Switchboard/)
    expect(report.detail).not.toMatch(/\.\./)
    expectEveryProcedureAnswered(report)
    expect(notReadyAnswers(report).length).toBeGreaterThan(40)
    for (const answer of notReadyAnswers(report)) {
      expect(answer.message, answer.proc).not.toMatch(/still starting/)
      expect(answer.message, answer.proc).toMatch(/could not be opened: The database in .* was written by a newer version/)
    }
  })

  it('on a read-only data folder', () => {
    const dataDir = join(root, 'read-only')
    mkdirSync(dataDir, { recursive: true })
    const report = run(dataDir, 'settled', 'read-only')
    expect(report.phase).toBe('error')
    expect(report.detail).toMatch(/cannot write to its data folder/)
    expectEveryProcedureAnswered(report)
    for (const answer of notReadyAnswers(report)) expect(answer.message, answer.proc).toMatch(/could not be opened: Switchboard cannot write/)
  })

  it('on a full disk, and start-up says the disk is full', () => {
    const dataDir = join(root, 'full')
    mkdirSync(dataDir, { recursive: true })
    const report = run(join(dataDir), 'settled', 'full')
    expect(report.phase).toBe('error')
    expect(report.detail).toMatch(/is full/)
    expect(report.detail).not.toMatch(/permission|change was not saved/)
    expectEveryProcedureAnswered(report)
    for (const answer of notReadyAnswers(report)) expect(answer.message, answer.proc).toMatch(/could not be opened: The disk holding .* is full/)
  })

  it('when the disk fills up while the app runs: every answer says the disk is full, none is an internal error', () => {
    const dataDir = join(root, 'filled')
    mkdirSync(dataDir, { recursive: true })
    const report = run(dataDir, 'filled', 'room')
    expect(report.phase).toBe('ready')
    expectEveryProcedureAnswered(report, RUN_WHILE_OPEN)
    const full = report.answers.filter((a) => a.errorType === 'DiskFull')
    expect(full.length).toBeGreaterThan(5)
    for (const answer of full) expect(answer.message, answer.proc).toMatch(/is full/)
  })
})
