import { utilityProcess } from 'electron'
import { engineSpawner, type EngineSpawner, type UtilityProcessSpawner } from '../core/engine/engine-process'
import type { EngineReply } from '../core/engine/protocol'
import { bindingTestRunner, isRelayMessage, type RelayedProcess } from './binding-test-relay'

/**
 * The engine process as an Electron utilityProcess running out/main/engine-host.js: the way the
 * desktop and the installed CLI (which runs inside the app's executable) start it. Call it only
 * after the app is ready (Electron's rule for utilityProcess.fork).
 */
export const utilityProcessSpawner: UtilityProcessSpawner = (entry) => ({
  kind: 'utility process',
  spawn() {
    const child = utilityProcess.fork(entry, [], { serviceName: 'Switchboard engine', stdio: ['ignore', 'ignore', 'inherit'] })
    let exited = false
    const exitHandlers: Array<(info: { code: number | null; signal: string | null }) => void> = []
    // The host's binding test (binding-test-relay.ts) runs as a utility process of this one.
    const tests = bindingTestRunner(
      (modulePath, env) => utilityProcess.fork(modulePath, [], { env, serviceName: 'Switchboard engine check', stdio: 'ignore' }) as unknown as RelayedProcess,
      (reply) => {
        if (!exited) child.postMessage(reply)
      }
    )
    const messageHandlers: Array<(message: EngineReply) => void> = []
    child.on('message', (m: unknown) => {
      if (isRelayMessage(m)) {
        if (m.type === 'binding-test:fork' || m.type === 'binding-test:send' || m.type === 'binding-test:kill') tests.handle(m)
        return
      }
      for (const h of messageHandlers) h(m as EngineReply)
    })
    child.on('exit', (code) => {
      tests.stopAll()
      if (exited) return
      exited = true
      for (const h of exitHandlers) h({ code, signal: null })
    })
    return {
      get pid() {
        return child.pid
      },
      send(message) {
        if (!exited) child.postMessage(message)
      },
      onMessage(handler) {
        messageHandlers.push(handler)
      },
      onExit(handler) {
        exitHandlers.push(handler)
      },
      kill() {
        if (!exited) child.kill()
      }
    }
  }
})

/** The desktop's engine process: the spawn the one choice (chooseEngineSpawn) makes under Electron. */
export function desktopEngineSpawner(entry: string): EngineSpawner {
  return engineSpawner({ entry, electron: true, utilityProcess: typeof utilityProcess?.fork === 'function' ? utilityProcessSpawner : undefined })
}
