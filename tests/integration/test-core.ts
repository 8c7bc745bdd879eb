import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createCore, type Core, type CoreOptions } from '../../src/core'
import { createInProcessClient } from '../../src/core/bridge/in-process'
import type { BridgeClient } from '../../src/shared/bridge/client'
import type { Contract } from '../../src/shared/bridge/contract'
import type { Result } from '../../src/shared/errors/app-error'

/** A bridge result's value; an error result fails the test with its type and words. */
export const ok = <T>(r: Result<T>): T => {
  if (!r.ok) throw new Error(`${r.error.errorType}: ${r.error.message}`)
  return r.value
}

export interface TestCore {
  core: Core
  client: BridgeClient<Contract>
  dataDir: string
  /** Closes the core and removes its data folder. */
  close(): Promise<void>
}

/** A core in a fresh data folder (`prefix` names it in the temp folder), started, with an in-process client. */
export async function startTestCore(prefix: string, options: Partial<Omit<CoreOptions, 'dataDir'>> = {}): Promise<TestCore> {
  const dataDir = mkdtempSync(join(tmpdir(), prefix))
  const core = createCore({ mode: 'test', ...options, dataDir })
  await core.context.init.start()
  const client = createInProcessClient(core.router).client
  return {
    core,
    client,
    dataDir,
    async close() {
      await core.close()
      rmSync(dataDir, { recursive: true, force: true })
    }
  }
}
