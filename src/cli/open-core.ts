import type { Core, CoreOptions } from '../core'
import type { BridgeClient } from '../shared/bridge/client'
import type { Contract } from '../shared/bridge/contract'
import type { CliIO } from './command'

/**
 * A command that runs the whole core over a data folder (`switchboard api`, `switchboard sync`):
 * the folder's lock first (one owner per data folder, as for the app and browser mode), then the
 * core started, with an in-process client; closed and released however `run` ends. A folder in
 * use or data that cannot be opened is said on stderr and ends the command with 1.
 */
export async function withCore(
  io: CliIO,
  options: { dataDir: string; command: string; core?: Omit<CoreOptions, 'dataDir' | 'mode'> },
  run: (core: Core, client: BridgeClient<Contract>) => Promise<number>
): Promise<number> {
  const [{ createCore }, { acquireDataLock }, { createInProcessClient }] = await Promise.all([import('../core'), import('../core/store/data-lock'), import('../core/bridge/in-process')])
  let lock: { release(): void }
  try {
    lock = acquireDataLock(options.dataDir, `the command line (switchboard ${options.command})`)
  } catch (error) {
    io.stderr.write(`${(error as { error?: { message?: string } }).error?.message ?? String(error)}\n`)
    return 1
  }
  const core = createCore({ ...options.core, dataDir: options.dataDir, mode: 'desktop' })
  const client = createInProcessClient(core.router).client
  try {
    const state = await core.context.init.start()
    if (state.phase !== 'ready') {
      io.stderr.write(`Switchboard could not open its data: ${state.detail ?? 'unknown reason'}\n`)
      return 1
    }
    return await run(core, client)
  } finally {
    await core.close()
    lock.release()
  }
}
