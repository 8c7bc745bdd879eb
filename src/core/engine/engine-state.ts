import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { PRIVATE_FILE_MODE } from '../files/private-files'
import { logger } from '../log/logger'
import { liveLockHolder, type LockHolder } from '../store/data-lock'

/** The file where the app's engine says what it has loaded, for a CLI command on the same data folder. */
export const ENGINE_STATE_FILE = 'engine-state.json'

export interface EngineStateModel {
  modelId: string
  name: string
  contextSize: number
  contextReason: string
  weightsBytes: number
  contextBytes: number
  /** When the keep-alive unloads it (absent: kept until unloaded). */
  expiresAt?: number
}

export interface EngineState {
  /** The process of the core that owns the engine (the data folder lock's holder). */
  pid: number
  updatedAt: number
  models: EngineStateModel[]
}

/**
 * Whether this process holds the data folder the file is in: only the holder speaks for the
 * folder (a second app that could not take the folder must not overwrite or erase the state).
 */
const holdsFolder = (file: string): boolean => liveLockHolder(dirname(file))?.pid === process.pid

/** Written whole (temp file, then rename) so a reader never sees half of it; a failure is logged, never thrown. */
export function writeEngineState(file: string, models: EngineStateModel[]): void {
  try {
    if (!holdsFolder(file)) return
    const tmp = `${file}.${process.pid}.tmp`
    writeFileSync(tmp, JSON.stringify({ pid: process.pid, updatedAt: Date.now(), models } satisfies EngineState), { mode: PRIVATE_FILE_MODE })
    renameSync(tmp, file)
  } catch (error) {
    logger.warn('engine', `writing ${file} failed`, error)
  }
}

/** On close; never throws (closing must go on whatever the disk says). */
export function removeEngineState(file: string): void {
  try {
    if (holdsFolder(file)) rmSync(file, { force: true })
  } catch (error) {
    logger.warn('engine', `removing ${file} failed`, error)
  }
}

/**
 * What the app running on this data folder has loaded in its engine: the live holder of the
 * data folder's lock, and its engine's state when that holder wrote it. Undefined when no other
 * process holds the folder; a state file left by a process that is gone is not believed.
 */
export function appEngineState(dataDir: string): { holder: LockHolder; state?: EngineState } | undefined {
  const holder = liveLockHolder(dataDir)
  if (!holder || holder.pid === process.pid) return undefined
  try {
    const state = JSON.parse(readFileSync(join(dataDir, ENGINE_STATE_FILE), 'utf8')) as EngineState
    if (state.pid === holder.pid && Array.isArray(state.models)) return { holder, state }
  } catch {
    // No file: the app has not used its engine.
  }
  return { holder }
}
