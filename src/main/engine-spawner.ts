import { utilityProcess } from 'electron'
import { forkSpawner, type EngineSpawner } from '../core/engine/engine-process'
import type { EngineReply } from '../core/engine/protocol'
import { chooseEngineSpawn } from '../core/engine/engine-process'

/** The desktop's engine process: an Electron utilityProcess running out/main/engine-host.js. */
export function desktopEngineSpawner(entry: string): EngineSpawner {
  if (chooseEngineSpawn({ electron: true, utilityProcess: typeof utilityProcess?.fork === 'function' }) === 'child-process') return forkSpawner({ entry })
  return {
    kind: 'utility process',
    spawn() {
      const child = utilityProcess.fork(entry, [], { serviceName: 'Switchboard engine', stdio: ['ignore', 'ignore', 'inherit'] })
      let exited = false
      const exitHandlers: Array<(info: { code: number | null; signal: string | null }) => void> = []
      child.on('exit', (code) => {
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
          child.on('message', (m: unknown) => handler(m as EngineReply))
        },
        onExit(handler) {
          exitHandlers.push(handler)
        },
        kill() {
          if (!exited) child.kill()
        }
      }
    }
  }
}
