import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createCore, type Core, type CoreOptions } from '../../src/core'
import { createInProcessClient } from '../../src/core/bridge/in-process'
import type { BridgeClient } from '../../src/shared/bridge/client'
import type { Contract } from '../../src/shared/bridge/contract'
import type { Result } from '../../src/shared/errors/app-error'
import type { InitState } from '../../src/shared/app/init-state'

/** A bridge result's value; an error result fails the test with its type and words. */
export const ok = <T>(r: Result<T>): T => {
  if (!r.ok) throw new Error(`${r.error.errorType}: ${r.error.message}`)
  return r.value
}

export interface TestCore {
  core: Core
  client: BridgeClient<Contract>
  dataDir: string
  /** Where start-up ended (ready, or error with the reason). */
  state: InitState
  /** Closes the core and removes its data folder (one the test gave stays: the test owns it). */
  close(): Promise<void>
}

export interface TestCoreOptions extends Partial<Omit<CoreOptions, 'dataDir'>> {
  /** A data folder the test made (to reopen it, or to lay files in first); default a fresh one. */
  dataDir?: string | undefined
}

/** A core in a fresh data folder (`prefix` names it in the temp folder), started, with an in-process client. */
export async function startTestCore(prefix: string, options: TestCoreOptions = {}): Promise<TestCore> {
  const { dataDir: given, ...rest } = options
  const dataDir = given ?? mkdtempSync(join(tmpdir(), prefix))
  const core = createCore({ mode: 'test', ...rest, dataDir })
  const state = await core.context.init.start()
  const client = createInProcessClient(core.router).client
  return {
    core,
    client,
    dataDir,
    state,
    async close() {
      await core.close()
      if (!given) rmSync(dataDir, { recursive: true, force: true })
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
