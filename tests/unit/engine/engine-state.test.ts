import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { appEngineState, ENGINE_STATE_FILE, removeEngineState, writeEngineState } from '../../../src/core/engine/engine-state'
import { LOCK_FILE, machineId } from '../../../src/core/store/data-lock'

// Only the process holding the data folder writes or removes the engine state: a second app that
// could not take the folder (and closes) must not erase or overwrite what the running one says.
const dirs: string[] = []
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })))

function folderHeldBy(pid: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'sb-engine-state-'))
  dirs.push(dir)
  const machine = machineId()
  writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid, host: hostname(), app: 'the desktop app', since: Date.now(), ...(machine ? { machine } : {}) }))
  return dir
}

describe('the engine state file', () => {
  it('is left alone by a process that does not hold the data folder', () => {
    const dir = folderHeldBy(process.ppid)
    const file = join(dir, ENGINE_STATE_FILE)
    const theirs = JSON.stringify({ pid: process.ppid, updatedAt: 1, models: [{ modelId: 'tiny', name: 'tiny', contextSize: 2048, contextReason: 'trained', weightsBytes: 1, contextBytes: 1 }] })
    writeFileSync(file, theirs)
    writeEngineState(file, [])
    removeEngineState(file)
    expect(readFileSync(file, 'utf8')).toBe(theirs)
    expect(appEngineState(dir)?.state?.models.map((m) => m.modelId)).toEqual(['tiny'])
  })

  it('is written and removed by the holder', () => {
    const dir = folderHeldBy(process.pid)
    const file = join(dir, ENGINE_STATE_FILE)
    writeEngineState(file, [])
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ pid: process.pid, models: [] })
    removeEngineState(file)
    expect(existsSync(file)).toBe(false)
  })
})
