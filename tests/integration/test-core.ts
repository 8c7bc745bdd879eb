import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createCore, type Core, type CoreOptions } from '../../src/core'
import { createInProcessClient } from '../../src/core/bridge/in-process'
import type { BridgeClient } from '../../src/shared/bridge/client'
import type { Contract } from '../../src/shared/bridge/contract'
import type { Result } from '../../src/shared/errors/app-error'
import type { InitState } from '../../src/shared/app/init-state'

// The one way tests build a core. A file that builds one by hand says why on that line (a child
// process that is the test subject, a test of createCore itself, a bench timing start-up).

/** A bridge result's value; an error result fails the test with its type and words. */
export const ok = <T>(r: Result<T>): T => {
  if (!r.ok) throw new Error(`${r.error.errorType}: ${r.error.message}`)
  return r.value
}

export interface TestCore {
  core: Core
  client: BridgeClient<Contract>
  dataDir: string
  /** Where start-up ended (ready, or error with the reason); with `start: false`, where it stands (not started). */
  state: InitState
  /** Closes the core and removes its data folder (one the test gave stays: the test owns it). */
  close(): Promise<void>
  /**
   * Closes this core, keeping its data folder, and starts a new one on it (a restart of the app):
   * the same options, with `changes` over them. The new one's close() removes the folder as this one's would have.
   */
  reopen(changes?: Omit<TestCoreOptions, 'dataDir'>): Promise<TestCore>
}

export interface TestCoreOptions extends Partial<Omit<CoreOptions, 'dataDir'>> {
  /** A data folder the test made (to reopen it, to lay files in first, or for a second core on it); default a fresh one. */
  dataDir?: string | undefined
  /** false (with startTestCore): the core is built but start-up is left to the test (to watch it, or to test what answers before it). */
  start?: boolean
}

/** A core in a fresh data folder (`prefix` names it in the temp folder), started, with an in-process client. */
export async function startTestCore(prefix: string, options: TestCoreOptions = {}): Promise<TestCore> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), prefix))
  return openTestCore(prefix, options, dataDir, !options.dataDir)
}

async function openTestCore(prefix: string, options: TestCoreOptions, dataDir: string, ownsFolder: boolean): Promise<TestCore> {
  const { dataDir: _given, start = true, ...rest } = options
  const core = createCore({ mode: 'test', ...rest, dataDir })
  const state = start ? await core.context.init.start() : core.context.init.state
  const client = createInProcessClient(core.router).client
  return {
    core,
    client,
    dataDir,
    state,
    async close() {
      await core.close()
      if (ownsFolder) rmSync(dataDir, { recursive: true, force: true })
    },
    async reopen(changes = {}) {
      await core.close()
      return openTestCore(prefix, { ...options, ...changes }, dataDir, ownsFolder)
    }
  }
}

/** `startTestCore`, and a thrown error with the reason when start-up did not reach ready. */
export async function readyTestCore(prefix: string, options: TestCoreOptions = {}): Promise<TestCore> {
  const started = await startTestCore(prefix, options)
  if (started.state.phase !== 'ready') {
    await started.close()
    throw new Error(`core did not start: ${started.state.detail}`)
  }
  return started
}
